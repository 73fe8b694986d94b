import { describe, expect, it } from "vitest";
import {
  RouterCommandError,
  RouterUnreachableError,
} from "../../../../src/contract/routers/router-backend.js";
import { SimulatedBackend } from "../../../../src/routeros/simulator/adapters/service-backend.js";
import { manualClock } from "../../../helpers/manual-clock.js";
import { waitFor } from "../../../helpers/wait-for.js";
import { smallOffice } from "../corpus.js";

const twentyPools = Array.from(
  { length: 20 },
  (_, i) => `/ip pool add name=p${i} ranges=10.0.0.1-10.0.0.2`,
).join("\n");

/**
 * Command latency the test releases by hand: a script's progress is then a matter of which waits the test let
 * end, not of timers racing each other on a busy machine.
 */
function handReleasedLatency() {
  const asked: number[] = [];
  const releases: (() => void)[] = [];
  let released = 0;
  const requested = (count: number) =>
    waitFor(() => asked.length >= count, {
      what: `the script to wait for its command ${count}`,
      detail: () => `${asked.length} wait(s) asked`,
    });
  return {
    asked,
    wait: (ms: number) =>
      new Promise<void>((resolve) => {
        asked.push(ms);
        releases.push(resolve);
        if (releases.length <= released) resolve();
      }),
    requested,
    /** Lets the first `count` commands' waits end, once the script has asked for them. */
    async release(count: number) {
      for (let command = 1; command <= count; command++) {
        await requested(command);
        released = Math.max(released, command);
        releases[command - 1]?.();
      }
    },
    releaseAll() {
      released = Number.POSITIVE_INFINITY;
      for (const resolve of releases) resolve();
    },
  };
}

describe("SimulatedBackend", () => {
  it("attaches routers by id, each with its own configuration", async () => {
    const backend = new SimulatedBackend();
    await backend.attach("r1", { name: "edge-1" });
    await backend.attach("r2", { name: "edge-2" });
    await backend.runScript("r1", "/ip pool add name=only-here ranges=10.0.0.1-10.0.0.2");
    expect(await backend.command("r1", "/system/identity/print")).toEqual([{ name: "edge-1" }]);
    expect(await backend.command("r2", "/ip/pool/print")).toEqual([]);
    await backend.detach("r2");
    expect(backend.isOnline("r2")).toBe(false);
    await expect(backend.command("r2", "/ip/pool/print")).rejects.toThrow(RouterUnreachableError);
  });

  it("keeps the attached router when attached again without state", async () => {
    const backend = new SimulatedBackend();
    await backend.attach("r", { name: "r" });
    await backend.runScript("r", "/ip pool add name=kept ranges=10.0.0.1-10.0.0.2");
    await backend.attach("r", { name: "r" });
    expect(await backend.command("r", "/ip/pool/print", "=.proplist=name")).toEqual([{ name: "kept" }]);
  });

  it("stops a script when its signal aborts, keeping what ran", async () => {
    const latency = handReleasedLatency();
    const backend = new SimulatedBackend({ commandLatencyMs: 20, wait: latency.wait });
    await backend.attach("r", { name: "r" });
    const controller = new AbortController();
    const running = backend.runScript("r", twentyPools, { signal: controller.signal });
    // Two commands run; the job is cancelled while the third waits for the router.
    await latency.release(2);
    await latency.requested(3);
    controller.abort(new Error("job cancelled"));
    latency.releaseAll();
    await expect(running).rejects.toThrow("job cancelled");
    const count = (await backend.command("r", "/ip/pool/print")).length;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(count).toBeLessThan(20);
  });

  it("reports script failures with text and line, keeps what ran and logs script,error", async () => {
    const backend = new SimulatedBackend();
    await backend.attach("r", { name: "r" });
    const outcome = await backend.runScript(
      "r",
      ":put before\n/ip pool add name=a ranges=10.0.0.1-10.0.0.2\n/ip pool add name=a ranges=10.0.0.1-10.0.0.2",
    );
    expect(outcome).toEqual({
      ok: false,
      output: "before",
      error: "failure: pool with such name already exists (line 3 column 1)",
      line: 3,
    });
    expect(await backend.command("r", "/ip/pool/print", "=.proplist=name")).toEqual([{ name: "a" }]);
    const log = await backend.command("r", "/log/print", "?topics=script,error");
    expect(log.map((entry) => entry.message)).toEqual([outcome.ok ? "" : outcome.error]);
  });

  it("turns router refusals of sync commands into RouterCommandError with the router's text", async () => {
    const backend = new SimulatedBackend();
    await backend.attach("r", { name: "r" });
    await backend.command("r", "/ip/address/add", "=address=10.0.0.1/24 =interface=ether1");
    const error = await backend
      .command("r", "/ip/address/add", "=address=10.0.0.1/24 =interface=ether1")
      .catch((e) => e);
    expect(error).toBeInstanceOf(RouterCommandError);
    expect(error.message).toBe("failure: already have such address");
  });

  it("rejects everything while the tunnel is down", async () => {
    const backend = new SimulatedBackend();
    await backend.attach("r", { name: "r" });
    backend.setOnline("r", false);
    expect(backend.isOnline("r")).toBe(false);
    await expect(backend.runScript("r", ":put 1")).rejects.toThrow(RouterUnreachableError);
    await expect(backend.command("r", "/ip/arp/print")).rejects.toThrow(RouterUnreachableError);
    await expect(backend.backup("r", "b")).rejects.toThrow(RouterUnreachableError);
    backend.setOnline("r", true);
    expect(await backend.runScript("r", ":put 1")).toEqual({ ok: true, output: "1" });
  });

  it("fails a running script when the tunnel drops mid-way, keeping what ran", async () => {
    const latency = handReleasedLatency();
    const backend = new SimulatedBackend({ commandLatencyMs: 20, wait: latency.wait });
    await backend.attach("r", { name: "r" });
    const running = backend.runScript("r", twentyPools);
    // Two commands run; the tunnel drops while the third waits for the router.
    await latency.release(2);
    await latency.requested(3);
    backend.setOnline("r", false);
    latency.releaseAll();
    await expect(running).rejects.toThrow(RouterUnreachableError);
    backend.setOnline("r", true);
    expect((await backend.command("r", "/ip/pool/print")).length).toBe(2);
  });

  it("goes offline for rebootOfflineMs after /system reboot, then comes back", async () => {
    const clock = manualClock("2026-11-22T10:00:00Z");
    const backend = new SimulatedBackend({ now: clock.now, rebootOfflineMs: 5000 });
    expect(backend.isRebooting("r")).toBe(false);
    await backend.attach("r", { name: "r" });
    expect(backend.isRebooting("r")).toBe(false);
    expect(await backend.runScript("r", "/system reboot")).toEqual({ ok: true, output: "" });
    expect(backend.isOnline("r")).toBe(false);
    expect(backend.isRebooting("r")).toBe(true);
    clock.advance(4999);
    expect(backend.isOnline("r")).toBe(false);
    clock.advance(1);
    expect(backend.isOnline("r")).toBe(true);
    expect(backend.isRebooting("r")).toBe(false);
    const log = await backend.command("r", "/log/print", "=.proplist=topics,message");
    expect(log).toContainEqual({ topics: "system,info", message: "router rebooted" });
  });

  it("keeps :global variables from one script to the next until the router reboots", async () => {
    const clock = manualClock("2026-11-22T10:00:00Z");
    const backend = new SimulatedBackend({ now: clock.now, rebootOfflineMs: 1000 });
    await backend.attach("r", { name: "r" });
    const read = ':global site; :global count; :put ($site . "/" . $count . "/" . [:typeof $count])';
    // GIVEN one job's script that sets globals
    await backend.runScript("r", ':global site "berlin"; :global count 2');
    // THEN a later script that declares them reads their values
    expect(await backend.runScript("r", read)).toEqual({ ok: true, output: "berlin/2/num" });
    // AND a stored script it runs shares them too
    await backend.runScript(
      "r",
      '/system script add name=bump source=":global count; :set count (\\$count + 1)"\n/system script run bump',
    );
    expect((await backend.runScript("r", read)).output).toBe("berlin/3/num");
    // AND a service restart (snapshot, then attach) is not a reboot: they survive it
    const restarted = new SimulatedBackend();
    await restarted.attach("r", { name: "r", state: JSON.parse(JSON.stringify(backend.snapshot("r"))) });
    expect((await restarted.runScript("r", read)).output).toBe("berlin/3/num");
    // WHEN the router reboots THEN they are gone
    await backend.runScript("r", "/system reboot");
    clock.advance(1000);
    expect(await backend.runScript("r", read)).toEqual({ ok: true, output: "//nil" });
  });

  it("injects the same faults for the same seed", async () => {
    const outcomes = async (seed: number) => {
      const backend = new SimulatedBackend({ seed, faultRate: 0.3 });
      await backend.attach("r", { name: "r" });
      const results: string[] = [];
      for (let i = 0; i < 40; i++) {
        const outcome = await backend.runScript("r", `/ip pool add name=p${i} ranges=10.0.0.1-10.0.0.2`);
        results.push(outcome.ok ? "ok" : outcome.error);
      }
      return results;
    };
    const first = await outcomes(7);
    expect(await outcomes(7)).toEqual(first);
    expect(first).toContain("failure: timeout (line 1 column 1)");
    expect(first).toContain("ok");
    expect(await outcomes(8)).not.toEqual(first);
  });

  it("waits commandLatencyMs before each command", async () => {
    const latency = handReleasedLatency();
    const backend = new SimulatedBackend({ commandLatencyMs: 25, wait: latency.wait });
    await backend.attach("r", { name: "r" });
    // Read from the state, not by a command, which would wait for its own latency.
    const pools = () => backend.snapshot("r").config["ip-pool"]?.items.length ?? 0;
    const running = backend.runScript("r", twentyPools.split("\n").slice(0, 3).join("\n"));
    for (let command = 1; command <= 3; command++) {
      await latency.requested(command);
      // The command waits for its latency: it has not run before the wait ends.
      expect(pools()).toBe(command - 1);
      await latency.release(command);
    }
    expect(await running).toEqual({ ok: true, output: "" });
    expect(pools()).toBe(3);
    expect(latency.asked).toEqual([25, 25, 25]);
  });

  it("validates its options, naming the option and the limit", () => {
    expect(() => new SimulatedBackend({ faultRate: 1.5 })).toThrow(
      "faultRate must be between 0 and 1 (got 1.5)",
    );
    expect(() => new SimulatedBackend({ commandLatencyMs: -1 })).toThrow(
      "commandLatencyMs must be between 0",
    );
  });

  it("takes backups by name for the service and restores them from a script", async () => {
    const backend = new SimulatedBackend({ rebootOfflineMs: 0 });
    await backend.attach("r", { name: "r" });
    expect(await backend.backup("r", "pre-job")).toBe("pre-job.backup");
    await backend.runScript("r", "/system identity set name=changed");
    await backend.runScript("r", "/system backup load name=pre-job.backup");
    expect(await backend.runScript("r", ":put [/system identity get name]")).toEqual({
      ok: true,
      output: "r",
    });
  });

  it("persists a router through snapshot and attach, as the service does across restarts", async () => {
    const backend = new SimulatedBackend();
    await backend.attach("r", { name: "office" });
    expect((await backend.runScript("r", smallOffice)).ok).toBe(true);
    await backend.backup("r", "nightly");
    await backend.runScript("r", "/ip pool add name=after-backup ranges=10.1.0.1-10.1.0.2");
    const state = JSON.parse(JSON.stringify(backend.snapshot("r")));

    const restarted = new SimulatedBackend({ rebootOfflineMs: 0 });
    await restarted.attach("r", { name: "office", state });
    const exportOf = async (b: SimulatedBackend) => (await b.runScript("r", "/export")).output;
    expect(await exportOf(restarted)).toBe(await exportOf(backend));
    expect(await restarted.command("r", "/ip/arp/print")).toEqual(
      await backend.command("r", "/ip/arp/print"),
    );
    const [next] = await restarted.command("r", "/ip/pool/add", "=name=next =ranges=10.2.0.1-10.2.0.2");
    const [expected] = await backend.command("r", "/ip/pool/add", "=name=next =ranges=10.2.0.1-10.2.0.2");
    expect(next).toEqual(expected);
    await restarted.runScript("r", "/system backup load name=nightly");
    expect(restarted.router("r").backupNames).toEqual(["nightly.backup"]);
    expect(await restarted.command("r", "/ip/pool/print", "?name=after-backup")).toEqual([]);
  });

  it("refuses a corrupt snapshot, naming the field", async () => {
    const backend = new SimulatedBackend();
    await expect(
      backend.attach("r", {
        name: "r",
        state: { version: 1, config: {}, backups: {}, log: [], nextLogId: 0 },
      }),
    ).rejects.toThrow(/nextLogId|clockOffsetMs/);
  });
});
