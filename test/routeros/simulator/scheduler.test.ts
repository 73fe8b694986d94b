/** The simulated router's scheduler on its own clock, and a safe change's revert restoring the backup. */
import { describe, expect, it } from "vitest";
import { armRevertScript, disarmRevertScript } from "../../../src/routeros/build/safe-change.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { run } from "./helpers.js";

function clockedRouter() {
  let nowMs = Date.parse("2026-11-22T10:00:00Z");
  const router = new SimulatedRouter({ name: "edge-1", now: () => new Date(nowMs), delayScale: 0 });
  return { router, advance: (ms: number) => (nowMs += ms) };
}

const exportOf = async (router: SimulatedRouter) => (await router.runSource("/export")).join("\n");

describe("/system scheduler on the router's clock", () => {
  it("runs a task at its start, then every interval, once however many runs it missed", async () => {
    const { router, advance } = clockedRouter();
    await run(
      router,
      `/system script add name=count source="/ip dns static add name=tick.lan address=10.0.0.1"
/system scheduler add name=tick interval=1m on-event=count`,
    );
    expect(await router.runScheduler()).toBe(0);
    advance(59_000);
    expect(await router.runScheduler()).toBe(0);
    advance(1_000);
    expect(await router.runScheduler()).toBe(1);
    advance(5 * 60_000);
    expect(await router.runScheduler()).toBe(1);
    expect(await run(router, ':put [:len [/ip dns static find name="tick.lan"]]')).toBe("2");
    expect(await run(router, ":put [/system scheduler get tick run-count]")).toBe("2");
    // The simulator's bookkeeping is not configuration: export leaves it out.
    expect(await exportOf(router)).not.toMatch(/next-run|run-count/);
  });

  it("runs a task without interval once, if its start is ahead; startup tasks after a reboot", async () => {
    const { router, advance } = clockedRouter();
    await run(
      router,
      `/system scheduler add name=later start-time=10:05:00 on-event="/system identity set name=later"
/system scheduler add name=past start-time=09:00:00 on-event="/ip dns set servers=8.8.8.8"
/system scheduler add name=boot start-time=startup on-event="/ip dns set servers=9.9.9.9"`,
    );
    advance(10 * 60_000);
    expect(await router.runScheduler()).toBe(1);
    expect(await router.runScheduler()).toBe(0);
    expect(await run(router, ":put [/system identity get name]\n:put [/ip dns get servers]")).toBe("later\n");
    router.reboot();
    expect(await router.runScheduler()).toBe(1);
    expect(await run(router, ":put [/ip dns get servers]")).toBe("9.9.9.9");
  });
});

describe("a safe change's revert", () => {
  it("fires at the deadline and restores the configuration from before the job, task and all", async () => {
    // GIVEN a router WHEN a job arms the revert, then changes the router
    const { router, advance } = clockedRouter();
    await run(router, "/ip dns set servers=1.1.1.1");
    const before = await exportOf(router);
    await run(router, `${armRevertScript("abc123", 120_000)}\n/ip dns set servers=9.9.9.9`);
    expect(await exportOf(router)).toContain("servers=9.9.9.9");
    // THEN nothing happens before the deadline, and at it the backup is loaded (the router reboots)
    advance(119_000);
    expect(await router.runScheduler()).toBe(0);
    advance(1_000);
    expect(await router.runScheduler()).toBe(1);
    expect(router.takeRebootRequest()).toBe(true);
    expect(await exportOf(router)).toBe(before);
    expect(router.backupNames).toEqual(["routerjobs-safe-abc123.backup"]);
    // AND the disarm job then fails saying the revert fired, and removes the backup the revert loaded
    const disarm = await router.runScript(disarmRevertScript("abc123"));
    expect(disarm).toMatchObject({ ok: false, error: expect.stringContaining("routerjobs-safe: reverted") });
    expect(router.backupNames).toEqual([]);
  });

  it("disarmed in time, leaves the change and nothing scheduled behind", async () => {
    const { router, advance } = clockedRouter();
    await run(router, `${armRevertScript("abc123", 120_000)}\n/ip dns set servers=9.9.9.9`);
    expect(await run(router, disarmRevertScript("abc123"))).toBe("edge-1\nrouterjobs-safe: confirmed");
    advance(600_000);
    expect(await router.runScheduler()).toBe(0);
    const after = await exportOf(router);
    expect(after).toContain("servers=9.9.9.9");
    expect(after).not.toContain("scheduler");
    expect(router.backupNames).toEqual([]);
  });
});
