/**
 * The simulated back end enforces the service's path: a router whose configuration cuts it off stops
 * answering, and a safe change's revert, firing on the router's clock, brings it back as it was.
 */
import { describe, expect, it } from "vitest";
import { RouterUnreachableError } from "../../../../src/contract/routers/router-backend.js";
import { armRevertScript, disarmRevertScript } from "../../../../src/routeros/build/safe-change.js";
import { SimulatedBackend } from "../../../../src/routeros/simulator/adapters/service-backend.js";

const EDGE = "e1000000-0000-4000-8000-000000000001";

/**
 * A back end on a clock the test moves, holding a router that has its uplink address already when it is
 * attached: the path (the service at 10.0.0.5 to the router's 10.0.0.1) is resolved on that configuration.
 */
async function addressedRouter() {
  let nowMs = Date.parse("2026-11-22T10:00:00Z");
  const options = { now: () => new Date(nowMs), delayScale: 0, rebootOfflineMs: 30_000 };
  const setup = new SimulatedBackend(options);
  await setup.attach(EDGE, { name: "edge-1" });
  await setup.runScript(EDGE, "/ip address add address=10.0.0.1/24 interface=ether1");
  const simulated = new SimulatedBackend({
    ...options,
    reach: { direction: "inbound", source: "10.0.0.5", protocol: "tcp", port: 8729 },
  });
  await simulated.attach(EDGE, { name: "edge-1", state: setup.snapshot(EDGE) });
  return { simulated, advance: (ms: number) => (nowMs += ms) };
}

const exportOf = async (simulated: SimulatedBackend) =>
  (await simulated.command(EDGE, "/export"))[0]?.ret ?? "";

describe("the simulated back end and the service's path", () => {
  it("a job that cuts the service off is reverted at the deadline, and the router answers again as before", async () => {
    // GIVEN an attached router the service reaches at 10.0.0.1
    const { simulated, advance } = await addressedRouter();
    const before = await exportOf(simulated);
    // WHEN a job arms the revert and drops the service's address
    const outcome = await simulated.runScript(
      EDGE,
      `${armRevertScript("t1", 120_000)}\n/ip firewall filter add chain=input action=drop src-address=10.0.0.5`,
    );
    expect(outcome.ok).toBe(true);
    // THEN the service's next call fails, naming the rule
    await expect(simulated.command(EDGE, "/system/identity/print")).rejects.toThrow(
      /does not answer the service: rule 1 of chain input drops 10\.0\.0\.5 to tcp\/8729/,
    );
    await expect(simulated.runScript(EDGE, disarmRevertScript("t1"))).rejects.toBeInstanceOf(
      RouterUnreachableError,
    );
    expect(simulated.isOnline(EDGE)).toBe(false);
    // AND at the deadline the revert fires on the router's clock, with no call reaching it: asked whether it is
    // online, the router runs its due tasks, loads the backup and reboots
    advance(120_000);
    expect(simulated.isOnline(EDGE)).toBe(false);
    await simulated.schedulerIdle(EDGE);
    expect(simulated.isRebooting(EDGE)).toBe(true);
    await expect(simulated.command(EDGE, "/system/identity/print")).rejects.toThrow(/offline/);
    advance(30_000);
    expect(simulated.isOnline(EDGE)).toBe(true);
    expect(await exportOf(simulated)).toBe(before);
    const disarm = await simulated.runScript(EDGE, disarmRevertScript("t1"));
    expect(disarm).toMatchObject({ ok: false, error: expect.stringContaining("routerjobs-safe: reverted") });
  });

  it("a change that keeps the path disarms in time and leaves nothing scheduled", async () => {
    const { simulated, advance } = await addressedRouter();
    await simulated.runScript(
      EDGE,
      `${armRevertScript("t2", 120_000)}\n/ip firewall filter add chain=input action=drop protocol=tcp dst-port=23`,
    );
    expect(await simulated.runScript(EDGE, disarmRevertScript("t2"))).toMatchObject({ ok: true });
    advance(600_000);
    const after = await exportOf(simulated);
    expect(after).toContain("dst-port=23");
    expect(after).not.toContain("scheduler");
  });

  it("a revert armed before a restart of the service still fires; one disarmed before it does not", async () => {
    // GIVEN two routers that armed a revert, one of them confirmed, saved as the service saves them
    const { simulated } = await addressedRouter();
    await simulated.runScript(EDGE, `${armRevertScript("t3", 120_000)}\n/ip dns set servers=9.9.9.9`);
    const armed = simulated.snapshot(EDGE);
    expect((await simulated.runScript(EDGE, disarmRevertScript("t3"))).ok).toBe(true);
    const confirmed = simulated.snapshot(EDGE);
    // WHEN a new service attaches them from their saved state, past the deadline
    let nowMs = Date.parse("2026-11-22T10:03:00Z");
    const restarted = new SimulatedBackend({
      now: () => new Date(nowMs),
      delayScale: 0,
      rebootOfflineMs: 30_000,
    });
    const OTHER = "e2000000-0000-4000-8000-000000000002";
    await restarted.attach(EDGE, { name: "edge-1", state: armed });
    await restarted.attach(OTHER, { name: "edge-2", state: confirmed });
    restarted.isOnline(EDGE);
    restarted.isOnline(OTHER);
    await restarted.schedulerIdle(EDGE);
    await restarted.schedulerIdle(OTHER);
    // THEN the armed one reverts (and reboots), the confirmed one keeps its change
    expect(restarted.isRebooting(EDGE)).toBe(true);
    expect(restarted.isRebooting(OTHER)).toBe(false);
    nowMs += 30_000;
    expect((await restarted.command(EDGE, "/ip/dns/print"))[0]?.servers).not.toBe("9.9.9.9");
    expect((await restarted.command(OTHER, "/ip/dns/print"))[0]?.servers).toBe("9.9.9.9");
  });
});
