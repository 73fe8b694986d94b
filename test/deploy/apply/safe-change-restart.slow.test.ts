/**
 * A safe change through our service while the service restarts on its database mid-window: the revert lives on
 * the router and the confirmation in the service's queue, so neither is lost, and a confirmed change is never
 * reverted. Slow: the service's database is created on disk (PGlite's initdb), so that a restart finds it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import { type ApplyContext, applyJob } from "../../../src/deploy/apply/apply.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import {
  clientOf,
  eventually,
  ROUTER_A,
  ROUTER_A2,
  schedulerLookedAt,
  startTestService,
  type TestService,
} from "../../service/harness.js";
import { safeJob } from "./safe-job.js";

describe("routerjobs apply with safeChange, the service restarting mid-window", () => {
  let nowMs = Date.parse("2026-11-22T10:00:00Z");
  let backend: SimulatedBackend;
  let dir: string;
  let service: TestService;
  let client: RouterJobsClient;
  let lines: string[];

  // One database for both cases (creating one on disk is most of their time): each has a router of its own.
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-safe-restart-"));
    backend = new SimulatedBackend({
      now: () => new Date(nowMs),
      delayScale: 0,
      rebootOfflineMs: 30_000,
      reach: { direction: "inbound", source: "10.0.0.5", protocol: "tcp", port: 8729 },
    });
    service = await startTestService(
      { database: join(dir, "pglite"), dataDir: join(dir, "service") },
      backend,
    );
    client = clientOf(service, join(dir, "budget"));
  });
  beforeEach(() => {
    lines = [];
  });
  afterAll(async () => {
    await client.close();
    await service.close();
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * The service stopped and started again on its database, at the same address (so the apply that waits keeps
   * asking it); the routers are the same devices, which the new instance attaches from its saved state.
   */
  async function restart(): Promise<void> {
    const port = Number(new URL(service.url).port);
    await service.close();
    service = await startTestService(
      { database: join(dir, "pglite"), dataDir: join(dir, "service") },
      backend,
      { port },
    );
  }
  const context = (): ApplyContext => ({
    client,
    journal: new Journal(join(dir, "state")),
    instanceId: "instance-1",
    write: (line) => lines.push(line),
  });
  const exportOf = async (routerId: string) =>
    (await backend.router(routerId).runSource("/export")).join("\n");
  const safeBackupsOf = (routerId: string) =>
    backend.router(routerId).backupNames.filter((name) => name.startsWith("routerjobs-safe-"));
  const confirmationOf = async (routerId: string) =>
    (await service.jobs(routerId)).find((job: { description: string }) =>
      job.description.startsWith("safe-change confirm"),
    ) as { status: string } | undefined;

  it("keeps the revert: the router restores itself at the deadline, and apply reports it", async () => {
    // GIVEN a safe change that drops the service's address, its confirmation pending behind the cut
    await client.execute(ROUTER_A, "/system/identity/print");
    const before = await exportOf(ROUTER_A);
    const applying = applyJob(
      safeJob("lockout", "/ip firewall filter add chain=input action=drop src-address=10.0.0.5"),
      context(),
    );
    await eventually(
      async () => ((await confirmationOf(ROUTER_A))?.status === "pending" ? true : undefined),
      10_000,
      "the confirmation pending behind the cut",
    );
    // WHEN the service restarts before the deadline
    await restart();
    await schedulerLookedAt(service, ROUTER_A);
    // THEN the router still cuts the service off, and the confirmation is still queued
    expect(backend.isOnline(ROUTER_A)).toBe(false);
    expect((await confirmationOf(ROUTER_A))?.status).toBe("pending");
    // AND at the deadline the router restores itself; once back, the confirmation fails and apply says so
    nowMs += 120_000;
    await eventually(async () => (backend.isRebooting(ROUTER_A) ? true : undefined), 10_000, "the revert");
    nowMs += 30_000;
    expect(await applying).toMatchObject({
      outcome: "failed",
      reason: `reverted on edge-a (${ROUTER_A}): the service could not reach it within 2m after the change`,
    });
    expect(await exportOf(ROUTER_A)).toBe(before);
    expect(safeBackupsOf(ROUTER_A)).toEqual([]);
  });

  it("does not revert a confirmed change: queued across a restart, then past the deadline after another", async () => {
    // GIVEN a safe change that keeps the service's way in but reboots the router, so its confirmation waits
    const applying = applyJob(
      safeJob(
        "telnet",
        "/ip firewall filter add chain=input action=drop protocol=tcp dst-port=23\n/system reboot",
        ROUTER_A2,
      ),
      context(),
    );
    await eventually(
      async () => ((await confirmationOf(ROUTER_A2))?.status === "pending" ? true : undefined),
      10_000,
      "the confirmation pending while the router reboots",
    );
    expect(backend.isRebooting(ROUTER_A2)).toBe(true);
    // WHEN the service restarts before the deadline, and the router is back
    await restart();
    nowMs += 30_000;
    // THEN the confirmation runs and disarms the revert
    expect((await applying).outcome).toBe("completed");
    expect(lines.join("\n")).toMatch(/confirmed: the service reached the router again/);
    // AND after one more restart and past the deadline, the router keeps the change and nothing is scheduled
    await restart();
    await client.execute(ROUTER_A2, "/system/identity/print");
    nowMs += 600_000;
    expect(backend.isOnline(ROUTER_A2)).toBe(true);
    await backend.schedulerIdle(ROUTER_A2);
    const after = await exportOf(ROUTER_A2);
    expect(after).toContain("dst-port=23");
    expect(after).not.toContain("scheduler");
    expect(safeBackupsOf(ROUTER_A2)).toEqual([]);
  });
});
