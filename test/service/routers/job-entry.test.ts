/** The comments the device back end leaves on a job's script entry, and the boot marker. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bootMarkerScript,
  jobWrapper,
  loadedComment,
  mayStillRun,
  parseJobComment,
  startedComment,
} from "../../../src/service/routers/job-entry.js";
import { SimulatedRouter } from "../../../src/simulator/router.js";

describe("job entry comments", () => {
  it("reads back every state the service and the wrapper write", () => {
    expect(parseJobComment(loadedComment())).toEqual({ state: "loaded" });
    expect(parseJobComment(startedComment("ab12"))).toEqual({ state: "started", boot: "ab12" });
    expect(parseJobComment(startedComment(undefined))).toEqual({ state: "started" });
    expect(parseJobComment("routerjobs:running:ab12")).toEqual({ state: "running", boot: "ab12" });
    expect(parseJobComment("routerjobs:completed")).toEqual({ state: "completed" });
    expect(parseJobComment("an operator's note")).toEqual({ state: "unknown" });
    expect(parseJobComment("routerjobs:paused")).toEqual({ state: "unknown" });
  });

  it("keeps any error text of a failed job whole, colons and all", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(parseJobComment(`routerjobs:failed:${text}`)).toEqual({ state: "failed", error: text });
      }),
    );
  });

  it("lets an entry run on only while the router is in the boot it was started in", () => {
    const started = parseJobComment(startedComment("boot1"));
    expect(mayStillRun(started, "boot1")).toBe(true);
    expect(mayStillRun(started, "boot2")).toBe(false);
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
    await router.runScript('/system script add name=j1 source=":put hi" comment="routerjobs:started:b1"');
    expect(await router.runScript(jobWrapper("j1", "b1"))).toMatchObject({ ok: true });
    expect(comment()).toBe("routerjobs:completed");
    await router.runScript('/system script set [find name=j1] source="/ip address add address=nonsense"');
    await router.runScript(jobWrapper("j1", "b1"));
    expect(parseJobComment(comment() ?? "")).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/invalid value/),
    });
  });
});
