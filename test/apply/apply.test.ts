import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ApplyContext, applyJob } from "../../src/apply/apply.js";
import { failureReason } from "../../src/apply/failure-reason.js";
import { Journal } from "../../src/apply/journal.js";
import type { RouterJobsClient } from "../../src/client/client.js";
import { type ApplyJob, idempotencyKey, jobKey } from "../../src/contract/apply-job.js";
import type { SimulatedBackend } from "../../src/service/routers/simulated/index.js";
import { clientOf, ROUTER_A, ROUTER_A2, startTestService, type TestService } from "../service/harness.js";

/** A job as the constructs would write it. */
function declare(script: string, overrides: Partial<ApplyJob> = {}): ApplyJob {
  const definition = {
    phase: "create" as const,
    router_id: ROUTER_A,
    description: "set identity",
    script,
    make_backup: true,
    express_execute: true,
    needs_acknowledgement: true,
    ...overrides,
  };
  return {
    version: 1,
    resource: "office/edge-a/identity",
    wait_for: "poll",
    timeout_ms: 20_000,
    ...definition,
    job_key: jobKey(definition),
  } as ApplyJob;
}

describe("routerjobs apply against the service", () => {
  let service: TestService;
  let stateDir: string;
  let client: RouterJobsClient;
  let lines: string[];

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service.close());

  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "rj-apply-"));
    client = clientOf(service, stateDir);
    lines = [];
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
  const router = (id = ROUTER_A) => (service.backend as SimulatedBackend).router(id);
  /** Backups of a router; a router the service has not yet attached has none. */
  const backups = (id = ROUTER_A) => {
    try {
      return router(id).backupNames.length;
    } catch {
      return 0;
    }
  };
  const jobsWithKey = async (key: string, routerId = ROUTER_A) =>
    (await service.jobs(routerId)).filter((job: { idempotency_key: string }) => job.idempotency_key === key);

  it("submits the job with a backup, waits until it completed, and the router holds the change", async () => {
    // GIVEN a declared identity change
    const job = declare('/system identity set name="edge a; main"');
    const backupsBefore = backups();
    // WHEN apply runs
    const result = await applyJob(job, context());
    // THEN it completed, printed its progress, made a backup first, and the router has the new identity
    expect(result.outcome).toBe("completed");
    expect(lines.some((line) => line.includes("submitted with a backup"))).toBe(true);
    expect(lines.at(-1)).toMatch(/office\/edge-a\/identity: job #\d+ completed/);
    expect(backups()).toBe(backupsBefore + 1);
    const [identity] = await client.execute(ROUTER_A, "/system/identity/print");
    expect(identity?.name).toBe("edge a; main");
  });

  it("does not run a change twice when the same resource instance applies it again", async () => {
    const job = declare("/system identity set name=twice");
    await applyJob(job, context());
    const key = idempotencyKey(job.job_key, "instance-1:1");
    const again = await applyJob(job, context());
    expect(again).toMatchObject({ outcome: "completed", alreadyApplied: true });
    expect(await jobsWithKey(key)).toHaveLength(1);
  });

  it("runs the same definition again for a new resource instance (a replacement or a revert)", async () => {
    const job = declare("/system identity set name=replaced");
    await applyJob(job, context());
    const second = await applyJob(job, context({ instanceId: "instance-2" }));
    expect(second).toMatchObject({ outcome: "completed", alreadyApplied: false });
    // Attempts count on across instances: the second run is attempt 2, by instance-2.
    expect(await jobsWithKey(idempotencyKey(job.job_key, "instance-2:2"))).toHaveLength(1);
  });

  it("reports a failing script with the router's message and line, keeps the backup, and retries deliberately", async () => {
    // GIVEN a script whose second line names an interface the router does not have
    const job = declare(
      "/ip address add address=10.9.0.1/24 interface=ether1\n/ip address add address=10.9.1.1/24 interface=nope",
      {
        description: "addresses",
      },
    );
    const backupsBefore = backups();
    // WHEN apply runs
    const result = await applyJob(job, context());
    // THEN the job failed with the router's own text and line, and the backup taken before it exists
    expect(result.outcome).toBe("failed");
    if (result.outcome !== "failed") return;
    expect(result.reason).toContain("input does not match any value of interface");
    expect(result.reason).toContain("line 2");
    expect(backups()).toBe(backupsBefore + 1);
    // WHEN the next apply runs the same definition
    const retry = await applyJob(job, context());
    // THEN it is a new attempt with a new key (the first stays failed), and it fails again for the same reason
    expect(retry.outcome).toBe("failed");
    expect(await jobsWithKey(idempotencyKey(job.job_key, "instance-1:2"))).toHaveLength(1);
  });

  describe("when the service gives no reason (the public service is not known to send `error`)", () => {
    // A router of its own: the other tests' failures are in ROUTER_A's log, seconds old.
    const own = () => router(ROUTER_A2);
    /** Runs a failing job, then asks for its reason as apply would of a service that left `error` out. */
    async function reasonWithoutError(script: string) {
      const result = await applyJob(
        declare(script, { router_id: ROUTER_A2, description: "fails" }),
        context(),
      );
      expect(result.outcome).toBe("failed");
      const job = (result as { job: { id: string } }).job;
      const listed = (await service.jobs(ROUTER_A2)).find((item: { id: string }) => item.id === job.id);
      return failureReason(client, ROUTER_A2, { ...listed, error: null }, Date.now() + 10_000);
    }
    // The service attaches a router on its first use; the tests set its clock before a job runs.
    beforeEach(async () => {
      await client.execute(ROUTER_A2, "/system/identity/print");
    });

    it("shows the latest script errors, saying so, when the router's clock cannot place them", async () => {
      // GIVEN a router whose clock is a day behind the service's
      own().setClock(new Date(Date.now() - 24 * 3600_000));
      // WHEN a job fails and the service sends no error
      const reason = await reasonWithoutError("/ip address add address=10.7.2.1/24 interface=nope");
      own().setClock(new Date());
      // THEN the router's latest errors are shown, labelled as such
      expect(reason).toContain("its clock does not place them in this job's run");
      expect(reason).toContain("input does not match any value of interface");
    });

    it("reads the router's script errors logged during the job, not an earlier job's", async () => {
      // GIVEN an earlier failure logged an hour ago by the router's clock
      own().setClock(new Date(Date.now() - 3600_000));
      await applyJob(
        declare("/ip address add address=10.7.0.1/24 interface=nope", { router_id: ROUTER_A2 }),
        context(),
      );
      own().setClock(new Date());
      // WHEN a later job fails for another reason and the service sends no error
      const reason = await reasonWithoutError("/ip address add address=10.7.1.300/24 interface=ether1");
      // THEN the reason is the later failure, from the router's log, and only it
      expect(reason).toContain("the router logged during the job");
      expect(reason).toContain("invalid value for argument address");
      expect(reason).not.toContain("input does not match any value of interface");
    });
  });

  it("resumes a journaled attempt after a crash without submitting it again", async () => {
    // GIVEN an apply that submitted and then died before it heard back (journal says "submitting")
    const job = declare("/system identity set name=resumed", { router_id: ROUTER_A2 });
    const key = idempotencyKey(job.job_key, "instance-1:1");
    const journal = new Journal(stateDir);
    await journal.update(
      { jobKey: job.job_key, resource: job.resource, routerId: job.router_id },
      (entry) => {
        entry.attempts.push({
          attempt: 1,
          idempotencyKey: key,
          instanceId: "instance-1",
          submittedAt: new Date().toISOString(),
          status: "submitting",
        });
      },
    );
    await client.submitJob(
      ROUTER_A2,
      { description: job.description, script: job.script, express_execute: true },
      { idempotencyKey: key },
    );
    // WHEN apply runs again (terraform re-ran the provisioner with a new instance)
    const result = await applyJob(job, context({ instanceId: "instance-2" }));
    // THEN it found the job in the list and waited for it: still exactly one job with that key
    expect(result.outcome).toBe("completed");
    expect(lines[0]).toContain("resuming attempt 1");
    expect(await jobsWithKey(key, ROUTER_A2)).toHaveLength(1);
  });

  it("submits a journaled attempt the service never received, with the journaled key", async () => {
    const job = declare("/system identity set name=lost", { router_id: ROUTER_A2 });
    const key = idempotencyKey(job.job_key, "instance-9:1");
    await new Journal(stateDir).update(
      { jobKey: job.job_key, resource: job.resource, routerId: job.router_id },
      (entry) => {
        entry.attempts.push({
          attempt: 1,
          idempotencyKey: key,
          instanceId: "instance-9",
          submittedAt: new Date().toISOString(),
          status: "submitting",
        });
      },
    );
    const result = await applyJob(job, context());
    expect(result.outcome).toBe("completed");
    expect(await jobsWithKey(key, ROUTER_A2)).toHaveLength(1);
  });

  it("honours its timeout with a clear message while the router is offline, and the next apply resumes the same job", async () => {
    const backend = service.backend as SimulatedBackend;
    backend.setOnline(ROUTER_A2, false);
    try {
      const job = declare("/system identity set name=offline", { router_id: ROUTER_A2, timeout_ms: 1500 });
      const started = performance.now();
      const result = await applyJob(job, context());
      const waited = performance.now();
      expect(result.outcome).toBe("timeout");
      expect(lines.at(-1)).toMatch(
        /not finished after 1500ms: job .* is pending \(is the router offline\?\)/,
      );
      const timeoutLine = lines.at(-1);
      backend.setOnline(ROUTER_A2, true);
      const resumed = await applyJob({ ...job, timeout_ms: 20_000 }, context());
      expect(resumed.outcome).toBe("completed");
      const jobs = await jobsWithKey(idempotencyKey(job.job_key, "instance-1:1"), ROUTER_A2);
      expect(jobs).toHaveLength(1);
      console.log(
        `router offline: apply waited ${((waited - started) / 1000).toFixed(1)} s against its 1.5 s timeout with the job ${result.job?.status}, then stopped: "${timeoutLine}"; ` +
          `with the router back the next apply resumed the same job, ${resumed.job?.status} ${((performance.now() - waited) / 1000).toFixed(1)} s later; ${jobs.length} job with the key`,
      );
    } finally {
      backend.setOnline(ROUTER_A2, true);
    }
  });
});
