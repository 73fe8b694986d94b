/** `onFailure: "rollback-wave"` at the wave's gate: a failed check restores the wave, on the real service. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import type { ApplyJob } from "../../../src/contract/apply-job.js";
import type { WaveCheck } from "../../../src/contract/wave-check.js";
import { applyJob } from "../../../src/deploy/apply/apply.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import { verifyWave } from "../../../src/deploy/apply/verify.js";
import { ChangesNotAppliedError } from "../../../src/errors.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { declareJob } from "../../helpers/declared-job.js";
import { waitFor } from "../../helpers/wait-for.js";
import { clientOf, ROUTER_A, ROUTER_A2, startTestService, type TestService } from "../../service/harness.js";

function declare(routerId: string, resource: string, script: string, makeBackup = true): ApplyJob {
  return declareJob(routerId, resource, {
    description: resource,
    script,
    makeBackup,
    timeoutMs: 20_000,
    rollback: "on-failure",
  });
}

describe("rollback-wave at the gate", () => {
  let service: TestService;
  let backend: SimulatedBackend;
  let client: RouterJobsClient;
  let stateDir: string;
  const lines: string[] = [];
  const write = (line: string) => lines.push(line);

  beforeAll(async () => {
    backend = new SimulatedBackend({ seed: 7, rebootOfflineMs: 500 });
    service = await startTestService({ rateLimit: { count: 1000, windowMs: 1000 } }, backend);
    stateDir = await mkdtemp(join(tmpdir(), "rj-rollback-wave-"));
    client = clientOf(service, stateDir);
  });
  afterAll(async () => {
    await client?.close();
    await service?.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  // A restore reboots the router (offline for rebootOfflineMs): the test reads it once it answers again.
  const exportOf = async (id: string) => {
    await waitFor(() => !backend.isRebooting(id), { what: `${id} to be back from its reboot` });
    return (await backend.router(id).runSource("/export")).join("\n");
  };

  it("restores every router of a wave whose check failed from its first job's backup, and says how", async () => {
    // GIVEN a wave of two routers (attached by a first read), each with two completed jobs, the second one
    // without a backup on edge-a2
    for (const id of [ROUTER_A, ROUTER_A2]) await client.execute(id, "/system/identity/print");
    const before = { a: await exportOf(ROUTER_A), a2: await exportOf(ROUTER_A2) };
    const jobs = [
      declare(ROUTER_A, "fleet/edge-a/dns", "/ip dns set servers=10.0.0.53"),
      declare(ROUTER_A, "fleet/edge-a/identity", '/system identity set name="edge-a new"'),
      declare(ROUTER_A2, "fleet/edge-a2/dns", "/ip dns set servers=10.0.0.53"),
      declare(ROUTER_A2, "fleet/edge-a2/identity", '/system identity set name="broken"', false),
    ];
    for (const job of jobs) {
      const result = await applyJob(job, {
        client,
        journal: new Journal(stateDir),
        instanceId: "i-1",
        write,
      });
      expect(result.outcome).toBe("completed");
    }
    const check: WaveCheck = {
      version: 1,
      resource: "fleet/rollout-wave-1",
      wave: { wave: 1, waves: 2 },
      routers: [
        { name: "edge-a", router_id: ROUTER_A, jobs: jobs.slice(0, 2).map(waveJob) },
        { name: "edge-a2", router_id: ROUTER_A2, jobs: jobs.slice(2).map(waveJob) },
      ],
      script: ':if ([/system identity get name] = "broken") do={:error "edge-a2 lost its name"}',
      soak_ms: 0,
      timeout_ms: 10_000,
      on_failure: "rollback-wave",
    };
    // WHEN the gate's check fails on one router
    lines.length = 0;
    const failure = await verifyWave(check, { client, write }).catch((error: unknown) => error);
    // THEN the gate fails, naming the check's failure and each router's restore
    expect(failure).toBeInstanceOf(ChangesNotAppliedError);
    const message = (failure as Error).message;
    expect(message).toContain("edge-a2 lost its name");
    expect(message).toMatch(/rollback-wave: 2 of 2 router\(s\) restored/);
    expect(message).toMatch(/edge-a: rolled back: the router is restored from backup routerjobs-job-\d+/);
    expect(lines.filter((line) => line.includes("rollback-wave: edge-a")).length).toBe(2);
    // AND both routers are back to the configuration before the wave's first job
    expect(await exportOf(ROUTER_A)).toBe(before.a);
    expect(await exportOf(ROUTER_A2)).toBe(before.a2);
    // AND a gate run again (Terraform re-creates the failed gate; the jobs are recorded as done) refuses to
    // pass a wave whose routers no longer hold its change, even though the check would pass now
    const again = await verifyWave({ ...check, script: ":put ok" }, { client, write }).catch(
      (error: unknown) => error,
    );
    expect(again).toBeInstanceOf(ChangesNotAppliedError);
    expect((again as Error).message).toMatch(
      /wave 1\/2: the wave was rolled back on edge-a \(restore job #\d+\), edge-a2 \(restore job #\d+\)/,
    );
  });

  it("keeps a rollout without rollback-wave as it was: the check fails and nothing is restored", async () => {
    const job = declare(ROUTER_A, "fleet/edge-a/stay", '/system identity set name="stays"');
    await applyJob(job, { client, journal: new Journal(stateDir), instanceId: "i-1", write });
    const check: WaveCheck = {
      version: 1,
      resource: "fleet/rollout-wave-1",
      wave: { wave: 1, waves: 2 },
      routers: [{ name: "edge-a", router_id: ROUTER_A }],
      script: ':error "always"',
      soak_ms: 0,
      timeout_ms: 10_000,
    };
    const failure = await verifyWave(check, { client, write }).catch((error: unknown) => error);
    expect((failure as Error).message).not.toContain("rollback");
    expect(await exportOf(ROUTER_A)).toContain("set name=stays");
  });
});

function waveJob(job: ApplyJob) {
  return { resource: job.resource, job_key: job.job_key };
}
