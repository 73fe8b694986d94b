/** The comments the device back end leaves on a job's script entry, and the boot marker. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import {
  attemptComment,
  bootMarkerScript,
  jobWrapper,
  loadedComment,
  mayStillRun,
  parseJobComment,
  startedComment,
  takeOverScript,
} from "../../../src/service/routers/job-entry.js";

describe("job entry comments", () => {
  it("reads back every state the service and the wrapper write", () => {
    expect(parseJobComment(loadedComment())).toEqual({ state: "loaded" });
    expect(parseJobComment(startedComment("ab12", "c0ffee"))).toEqual({
      state: "started",
      boot: "ab12",
      attempt: "c0ffee",
    });
    expect(parseJobComment(startedComment(undefined, "c0ffee"))).toEqual({
      state: "started",
      attempt: "c0ffee",
    });
    expect(parseJobComment("routerjobs:running:ab12:c0ffee")).toEqual({
      state: "running",
      boot: "ab12",
      attempt: "c0ffee",
    });
    // entries written before the attempt existed
    expect(parseJobComment("routerjobs:started:ab12")).toEqual({ state: "started", boot: "ab12" });
    expect(parseJobComment("routerjobs:started")).toEqual({ state: "started" });
    expect(() => startedComment('ab" comment="x', "c0ffee")).toThrow(/boot marker is lowercase hex/);
    expect(() => startedComment("ab12", "")).toThrow(/attempt is lowercase hex/);
    expect(parseJobComment("routerjobs:completed")).toEqual({ state: "completed" });
    expect(parseJobComment("an operator's note")).toEqual({ state: "unknown" });
    expect(parseJobComment("routerjobs:paused")).toEqual({ state: "unknown" });
  });

  it("writes started and running in the one format routers already hold", () => {
    // Entries on routers, and wrappers already sent, hold these exact strings: another format would strand them.
    expect(startedComment("ab12", "c0ffee")).toBe("routerjobs:started:ab12:c0ffee");
    expect(attemptComment("started", undefined, "c0ffee")).toBe("routerjobs:started::c0ffee");
    expect(attemptComment("running", "ab12", "c0ffee")).toBe("routerjobs:running:ab12:c0ffee");
    expect(parseJobComment(attemptComment("running", undefined, "c0ffee"))).toEqual({
      state: "running",
      attempt: "c0ffee",
    });
  });

  it("keeps any error text of a failed job whole, colons and all", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(parseJobComment(`routerjobs:failed:${text}`)).toEqual({ state: "failed", error: text });
      }),
    );
  });

  it("lets an entry run on only while the router is in the boot it was started in", () => {
    const started = parseJobComment(startedComment("b001", "a1"));
    expect(mayStillRun(started, "b001")).toBe(true);
    expect(mayStillRun(started, "b002")).toBe(false);
    expect(mayStillRun(parseJobComment("routerjobs:running:boot1"), "boot2")).toBe(false);
    // without a marker (an older entry, or a router that refused the marker) the entry is only waited for
    expect(mayStillRun(parseJobComment("routerjobs:running"), "boot2")).toBe(true);
    expect(mayStillRun(started, undefined)).toBe(true);
    expect(mayStillRun(parseJobComment("routerjobs:completed"), "boot1")).toBe(false);
  });

  it("the boot marker stays for the boot and changes with a reboot (on the simulated router)", async () => {
    const router = new SimulatedRouter();
    const read = async (candidate: string) => (await router.runScript(bootMarkerScript(candidate))).output;
    expect(await read("aaaa")).toBe("aaaa");
    expect(await read("bbbb")).toBe("aaaa");
    router.reboot();
    expect(await read("cccc")).toBe("cccc");
    expect(() => bootMarkerScript('x" ; /system reboot')).toThrow(/hex/);
  });

  it("the wrapper marks the entry running under the boot, then completed or failed with the text", async () => {
    const router = new SimulatedRouter();
    const comment = () => router.table("system-script").items[0]?.values.comment;
    await router.runScript('/system script add name=j1 source=":put hi" comment="routerjobs:started:b1:a1"');
    expect(await router.runScript(jobWrapper("j1", "b1", "a1"))).toMatchObject({ ok: true });
    expect(comment()).toBe("routerjobs:completed");
    await router.runScript(
      '/system script set [find name=j1] source="/ip address add address=nonsense" comment="routerjobs:started:b1:a2"',
    );
    await router.runScript(jobWrapper("j1", "b1", "a2"));
    expect(parseJobComment(comment() ?? "")).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/invalid value/),
    });
  });

  it("runs the script once, under the one attempt that holds the entry, whichever wrapper comes", async () => {
    const router = new SimulatedRouter();
    const comment = () => router.table("system-script").items[0]?.values.comment;
    const runs = async () => (await router.runScript(":global runs; :put $runs")).output;
    await router.runScript(':global runs ""');
    const add = async (state: string) =>
      expect(
        await router.runScript(
          `/system script add name=j2 source=":global runs; :set runs (\\$runs . \\"x\\")" comment="${state}"`,
        ),
      ).toMatchObject({ ok: true });
    // a dead instance marked the entry for attempt a1 and died before its /execute: the resumer takes it over
    await add(startedComment("b1", "a1"));
    await router.runScript(takeOverScript("j2", "b1", "a1", "b2"));
    expect(comment()).toBe(startedComment("b1", "b2"));
    // a late /execute of a1 finds the entry no longer its own and runs nothing
    await router.runScript(jobWrapper("j2", "b1", "a1"));
    expect(comment()).toBe(startedComment("b1", "b2"));
    expect(await runs()).toBe("");
    // the resumer's attempt runs it, once; the same wrapper again finds it completed and runs nothing
    await router.runScript(jobWrapper("j2", "b1", "b2"));
    expect(comment()).toBe("routerjobs:completed");
    await router.runScript(jobWrapper("j2", "b1", "b2"));
    expect(await runs()).toBe("x");
    // the other order: the old attempt's wrapper took the entry first, so the take-over changes nothing
    await router.runScript("/system script remove [find name=j2]");
    await add("routerjobs:running:b1:a1");
    await router.runScript(takeOverScript("j2", "b1", "a1", "b3"));
    expect(comment()).toBe("routerjobs:running:b1:a1");
  });
});
