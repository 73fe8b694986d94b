/** `:execute` on the simulated router: background script jobs in `/system script job`. */
import { describe, expect, it } from "vitest";
import { MAX_BACKGROUND_JOBS } from "../../../src/routeros/limits.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { fail, fixedNow, freshRouter, run } from "./helpers.js";

/** `:delay` takes real time here, so a job with `:delay 1h` is still running until it is stopped. */
const slowRouter = (options: { maxScriptStatements?: number } = {}) =>
  new SimulatedRouter({ name: "lab", now: fixedNow, delayScale: 1, ...options });

describe(":execute", () => {
  it("runs a script in the background as a job listed until it ends, and returns the job's id", async () => {
    const router = slowRouter();
    const id = await run(
      router,
      ":global after false; :local j [:execute {:delay 1h; :global after true}]; :put $j",
    );
    expect(id).toBe("*1");
    expect(await run(router, "/system script job print")).toContain("admin  2026-11-22 10:00:00  command");
    expect(await run(router, ":put [/system script job find]")).toBe("*1");
    await run(router, `/system script job remove ${id}`);
    await router.jobsIdle();
    expect(await run(router, ":put [:len [/system script job find]]")).toBe("0");
    expect(await run(router, ":global after; :put $after")).toBe("false");
    expect(router.logEntries.filter((entry) => entry.topics === "script,error")).toEqual([]);
  });

  it("shares the router's globals, and its printed output goes to file= only", async () => {
    const router = freshRouter();
    expect(await run(router, ':execute {:global done "yes"; :put line1; :put line2} file=job-out')).toBe("");
    await router.jobsIdle();
    expect(await run(router, ":global done; :put $done")).toBe("yes");
    expect(router.readFile("job-out.txt")).toBe("line1\nline2");
    await run(router, ':execute script=":put (6 * 7)" file=answer.txt');
    await router.jobsIdle();
    expect(router.readFile("answer.txt")).toBe("42");
  });

  it("stops a runaway job at the statement limit and logs the error, the starting script unharmed", async () => {
    const router = new SimulatedRouter({
      name: "lab",
      now: fixedNow,
      delayScale: 0,
      maxScriptStatements: 5000,
    });
    expect(await run(router, ":execute {:while (true) do={}}; :put started")).toBe("started");
    await router.jobsIdle();
    const errors = router.logEntries.filter((entry) => entry.topics === "script,error");
    expect(errors.map((entry) => entry.message)).toEqual([
      "script stopped after 5000 statements, the limit of this router (line 1 column 11)",
    ]);
  });

  it("counts the statements of the jobs a script starts against that script's limit", async () => {
    const router = new SimulatedRouter({
      name: "lab",
      now: fixedNow,
      delayScale: 0,
      maxScriptStatements: 5000,
    });
    // Each job starts the next one: without a shared count, the chain would never end.
    await run(router, ":global relay do={ :execute {:global relay; $relay} }; $relay");
    await router.jobsIdle();
    const errors = router.logEntries.filter((entry) => entry.topics === "script,error");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/^script stopped after 5000 statements, the limit of this router/);
  });

  it("logs a failing job with RouterOS's text", async () => {
    const router = freshRouter();
    await run(router, ":execute {/ip address add address=10.0.0.1/24 interface=nowhere}");
    await router.jobsIdle();
    expect(router.logEntries.at(-1)).toMatchObject({ topics: "script,error" });
    expect(router.logEntries.at(-1)?.message).toMatch(/^input does not match any value of interface/);
  });

  it("refuses a job beyond the router's limit, and a reboot stops them all", async () => {
    const router = slowRouter();
    await run(router, `:for i from=1 to=${MAX_BACKGROUND_JOBS} do={ :execute {:delay 1h} }`);
    expect(await fail(router, ":execute {:delay 1h}")).toBe(
      `failure: ${MAX_BACKGROUND_JOBS} scripts already running in the background, the limit of this router (line 1 column 1)`,
    );
    router.reboot();
    await router.jobsIdle();
    expect(await run(router, ":put [:len [/system script job find]]")).toBe("0");
  });

  it("fails at :execute on source that does not parse, naming the bad word", async () => {
    const router = freshRouter();
    expect(await fail(router, ':execute script="/ip adress print"')).toBe(
      "bad command name adress (line 1 column 5)",
    );
    expect(await fail(router, ":execute file=x")).toBe(
      "missing value(s) of argument(s) script (line 1 column 1)",
    );
    expect(await run(router, ":put [:len [/system script job find]]")).toBe("0");
  });

  it("keeps jobs out of snapshots and backups, and code globals as nil", async () => {
    const router = slowRouter();
    await run(router, ':global f [:parse ":put 1"]; :global n 3; :execute {:delay 1h}');
    const snapshot = router.snapshot();
    expect(JSON.stringify(snapshot)).not.toContain("system-script-job");
    expect(snapshot.globals).toEqual({ f: null, n: 3 });
    const copy = new SimulatedRouter({ name: "lab", now: fixedNow });
    copy.restore(JSON.parse(JSON.stringify(snapshot)));
    expect(await run(copy, ":global n; :put $n")).toBe("3");
    router.reboot();
    await router.jobsIdle();
  });
});

describe(":environment print and :time on the router", () => {
  it("lists the router's globals, those of earlier scripts too", async () => {
    const router = freshRouter();
    await run(router, ':global site "riga"; :global ports {80;443}');
    expect(await run(router, ":environment print")).toBe('site="riga"\nports={80; 443}');
  });

  it("times a block by its :delay time", async () => {
    expect(await run(freshRouter(), ":put [:time {:delay 2s}]")).toBe("00:00:02.001");
  });
});
