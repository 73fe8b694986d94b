/**
 * A safe change through our service: the job arms its revert, apply confirms it by a follow-up job; a change
 * that cuts the service off reverts on the router at the deadline, and apply reports it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import { type ApplyContext, applyJob } from "../../../src/deploy/apply/apply.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { clientOf, eventually, ROUTER_A, startTestService, type TestService } from "../../service/harness.js";
import { safeJob } from "./safe-job.js";

describe("routerjobs apply with safeChange", () => {
  let nowMs = Date.parse("2026-11-22T10:00:00Z");
  let backend: SimulatedBackend;
  let service: TestService;
  let stateDir: string;
  let client: RouterJobsClient;
  let lines: string[];

  beforeAll(async () => {
    // The router's clock is the test's: the deadline passes when the test says so, never by waiting.
    backend = new SimulatedBackend({
      now: () => new Date(nowMs),
      delayScale: 0,
      rebootOfflineMs: 30_000,
      reach: { direction: "inbound", source: "10.0.0.5", protocol: "tcp", port: 8729 },
    });
    service = await startTestService({}, backend);
  });
  afterAll(async () => service.close());
  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "rj-safe-"));
    client = clientOf(service, stateDir);
    lines = [];
  });
  afterEach(async () => {
    await client.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  const context = (): ApplyContext => ({
    client,
    journal: new Journal(stateDir),
    instanceId: "instance-1",
    write: (line) => lines.push(line),
  });
  const exportOf = async () => (await backend.router(ROUTER_A).runSource("/export")).join("\n");

  it("a change that keeps the service's way in is confirmed, and nothing stays scheduled", async () => {
    const result = await applyJob(
      safeJob("telnet", "/ip firewall filter add chain=input action=drop protocol=tcp dst-port=23"),
      context(),
    );
    expect(result.outcome).toBe("completed");
    expect(lines.join("\n")).toMatch(
      /confirmed: the service reached the router again; the revert routerjobs-safe-\w+ is disarmed/,
    );
    const after = await exportOf();
    expect(after).toContain("dst-port=23");
    expect(after).not.toContain("scheduler");
  });

  it("a change that cuts the service off reverts at the deadline, and apply says so", async () => {
    // GIVEN the router as it is before the change
    const before = await exportOf();
    // WHEN a safe change drops the service's address
    const applying = applyJob(
      safeJob("lockout", "/ip firewall filter add chain=input action=drop src-address=10.0.0.5"),
      context(),
    );
    // THEN the service cannot reach the router: the confirmation waits, pending
    await eventually(
      async () => (backend.router(ROUTER_A).table("firewall-filter").items.length > 1 ? true : undefined),
      10_000,
      "the change on the router",
    );
    await eventually(
      async () =>
        (await service.jobs(ROUTER_A)).some(
          (job: { description: string; status: string }) =>
            job.description.startsWith("safe-change confirm") && job.status === "pending",
        ) || undefined,
      10_000,
      "the confirmation pending behind the cut",
    );
    expect(backend.isOnline(ROUTER_A)).toBe(false);
    // AND at the deadline the router restores itself and reboots; once back, the confirmation runs and fails
    nowMs += 120_000;
    await eventually(async () => (backend.isRebooting(ROUTER_A) ? true : undefined), 10_000, "the revert");
    nowMs += 30_000;
    const result = await applying;
    expect(result).toMatchObject({
      outcome: "failed",
      reason: `reverted on edge-a (${ROUTER_A}): the service could not reach it within 2m after the change`,
    });
    expect(await exportOf()).toBe(before);
  });
});
