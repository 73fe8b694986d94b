import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import type { ApplyJob } from "../../../src/contract/apply-job.js";
import { parseMarker } from "../../../src/contract/attempt-marker.js";
import type { JobListItem } from "../../../src/contract/job.js";
import { type ApplyContext, applyJob } from "../../../src/deploy/apply/apply.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import { parseRestoreMarker } from "../../../src/deploy/rollback/rollback-script.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { declareJob } from "../../helpers/declared-job.js";
import { waitFor } from "../../helpers/wait-for.js";
import { clientOf, ROUTER_A, startTestService, type TestService } from "../../service/harness.js";

/** A job as the constructs write it, with `rollback: "on-failure"` unless `rollback: undefined` is given. */
function declare(
  script: string,
  overrides: {
    readonly rollback?: undefined;
    readonly resource?: string;
    readonly make_backup?: boolean;
  } = {},
): ApplyJob {
  return declareJob(ROUTER_A, overrides.resource ?? "office/edge-a/vlan", {
    description: "add the guest vlan",
    script,
    makeBackup: overrides.make_backup ?? true,
    timeoutMs: 20_000,
    ...("rollback" in overrides ? {} : { rollback: "on-failure" as const }),
  });
}

/** A change that goes half way, then fails: what a rollback exists for (each test its own name and subnet). */
const halfDone = (name: string, subnet: number) =>
  `/system identity set name="${name}"\n/ip address add address=10.9.${subnet}.1/24 interface=ether2\n:error "gateway unreachable"`;

describe("rollback on failure, against the service with simulated routers", () => {
  let service: TestService;
  let backend: SimulatedBackend;
  let stateDir: string;
  let client: RouterJobsClient;
  let lines: string[];

  beforeAll(async () => {
    // A restore from a binary backup reboots the router, as a device does; a short reboot keeps tests quick.
    backend = new SimulatedBackend({ seed: 7, rebootOfflineMs: 500 });
    service = await startTestService({ rateLimit: { count: 1000, windowMs: 1000 } }, backend);
  });
  afterAll(async () => service.close());
  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "rj-rollback-"));
    client = clientOf(service, stateDir);
    lines = [];
    // Every test starts from the same known configuration.
    await backOnline();
    await client.execute(ROUTER_A, "/system/identity/set", "=name=edge-a");
  });
  afterEach(async () => {
    await client.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  const context = (extra: Partial<ApplyContext> = {}): ApplyContext => ({
    client,
    journal: new Journal(stateDir),
    instanceId: "instance-1",
    write: (line) => lines.push(line),
    ...extra,
  });
  // A restore reboots the router (offline for rebootOfflineMs): the test reads it once it answers again.
  const backOnline = () =>
    waitFor(() => !backend.isRebooting(ROUTER_A), { what: "edge-a to be back from its reboot" });
  const exportOf = async () => {
    await backOnline();
    return (await backend.router(ROUTER_A).runSource("/export")).join("\n");
  };
  const restoreJobs = async () =>
    ((await service.jobs(ROUTER_A)) as JobListItem[]).filter((job) => parseRestoreMarker(job.description));

  it("restores the router from the failed job's backup, says so, and still fails", async () => {
    // GIVEN a router's configuration and a change declared with rollback on failure that fails half way
    const before = await exportOf();
    const job = declare(halfDone("edge half", 1));
    // WHEN apply runs it
    const result = await applyJob(job, context());
    // THEN the resource fails with the router's reason and the rollback in the same line
    expect(result.outcome).toBe("failed");
    if (result.outcome !== "failed") return;
    expect(result.reason).toContain("gateway unreachable");
    expect(result.reason).toMatch(
      /rolled back: the router is restored from backup routerjobs-job-\d+ \(restore job #\d+\)/,
    );
    expect(lines.at(-1)).toContain("rolled back");
    // AND the router's configuration is the one before the job
    expect(await exportOf()).toBe(before);
    // AND the restore is in the job list under its own marker, which is no attempt of the change
    const [restore] = await restoreJobs();
    expect(restore?.status).toBe("completed");
    expect(parseMarker(restore?.description ?? "")).toBeUndefined();
    expect(restore?.make_backup).toBe(false);
  });

  it("leaves the router as the failed job left it without rollback", async () => {
    const job = declare(halfDone("edge plain", 2), { rollback: undefined });
    const restoresBefore = (await restoreJobs()).length;
    const result = await applyJob(job, context());
    expect(result.outcome).toBe("failed");
    if (result.outcome === "failed") expect(result.reason).not.toContain("rolled back");
    expect(await exportOf()).toContain('set name="edge plain"');
    expect((await restoreJobs()).length).toBe(restoresBefore);
  });

  it("rolls back a job that does not ask for it when --rollback-on-failure is given", async () => {
    const before = await exportOf();
    const job = declare(halfDone("edge flag", 3), { rollback: undefined });
    const result = await applyJob(job, context({ rollbackOnFailure: true }));
    expect(result.outcome).toBe("failed");
    if (result.outcome === "failed") expect(result.reason).toContain("rolled back: the router is restored");
    expect(await exportOf()).toBe(before);
  });

  it("reports a restore that fails, with the router's reason, and still fails the resource", async () => {
    // GIVEN a failing change that also removed the backup taken before it
    const job = declare(
      '/system identity set name="edge lost"\n/file remove [find type=backup]\n:error "broke it"',
      { resource: "office/edge-a/lost" },
    );
    // WHEN apply runs it with rollback
    const result = await applyJob(job, context());
    // THEN the failure line names the job's reason and why the restore failed; the change stays
    expect(result.outcome).toBe("failed");
    if (result.outcome !== "failed") return;
    expect(result.reason).toContain("broke it");
    expect(result.reason).toMatch(
      /the rollback failed: restore job #\d+ failed: .*no backup routerjobs-job-\d+ on the router/,
    );
    expect(await exportOf()).toContain('set name="edge lost"');
  });

  it("says a job without a backup cannot be rolled back", async () => {
    const job = declare(halfDone("edge nobackup", 4), {
      make_backup: false,
      resource: "office/edge-a/nobackup",
    });
    const result = await applyJob(job, context());
    expect(result.outcome).toBe("failed");
    if (result.outcome === "failed")
      expect(result.reason).toContain("not rolled back: the job took no backup (make_backup is false)");
  });

  it("after a rolled-back failure, runs the change again as after a plain failure, and restores once per failure", async () => {
    // GIVEN a change that failed and was rolled back, its failure reported from this machine
    const job = declare(halfDone("edge again", 5), { resource: "office/edge-a/again" });
    const first = await applyJob(job, context());
    expect(first.outcome).toBe("failed");
    const restores = (await restoreJobs()).length;
    // WHEN the next deploy applies the same change
    lines = [];
    const second = await applyJob(job, context());
    // THEN it is submitted again as attempt 2 (the restore job counted as no attempt), fails, and is restored
    expect(lines.some((line) => line.includes("submitted with a backup (attempt 2"))).toBe(true);
    expect(second.outcome).toBe("failed");
    if (second.outcome === "failed") expect(second.reason).toContain("rolled back");
    expect((await restoreJobs()).length).toBe(restores + 1);
    // AND an apply on another machine (no journal) adopts that failed attempt and finds its restore listed
    lines = [];
    const elsewhere = await mkdtemp(join(tmpdir(), "rj-rollback-other-"));
    const third = await applyJob(job, context({ instanceId: "instance-2", journal: new Journal(elsewhere) }));
    await rm(elsewhere, { recursive: true, force: true });
    expect(third.outcome).toBe("failed");
    expect(lines.some((line) => /restore job #\d+ already listed/.test(line))).toBe(true);
    expect((await restoreJobs()).length).toBe(restores + 1);
  });
});
