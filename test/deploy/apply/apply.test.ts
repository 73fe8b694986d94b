import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../../src/client/client.js";
import { NetworkError } from "../../../src/client/errors.js";
import type { ApplyJob } from "../../../src/contract/apply-job.js";
import {
  markDescription,
  parseMarker,
  parseWave,
  stripMarker,
  tagOf,
} from "../../../src/contract/attempt-marker.js";
import type { JobListItem } from "../../../src/contract/job.js";
import { type ApplyContext, applyJob } from "../../../src/deploy/apply/apply.js";
import type { DeployKnowledge } from "../../../src/deploy/apply/deploy-knowledge.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import type { ResourceKnowledge } from "../../../src/deploy/job-list/attempts.js";
import { failureReason } from "../../../src/deploy/job-list/failure-reason.js";
import { generateLocalTls } from "../../../src/platform/tls/certificates.js";
import type { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { declareJob } from "../../helpers/declared-job.js";
import {
  clientOf,
  eventually,
  ROUTER_A,
  ROUTER_A2,
  startTestService,
  type TestService,
  TOKEN_A,
} from "../../service/harness.js";

/** A job as the constructs would write it. */
function declare(script: string, overrides: Partial<ApplyJob> = {}): ApplyJob {
  return declareJob(ROUTER_A, "office/edge-a/identity", {
    description: "set identity",
    script,
    makeBackup: true,
    express: true,
    waitFor: "poll",
    timeoutMs: 20_000,
    definition: overrides,
  });
}

describe("routerjobs apply against the service", () => {
  let service: TestService;
  let stateDir: string;
  let client: RouterJobsClient;
  let lines: string[];

  beforeAll(async () => {
    service = await startTestService({ rateLimit: { count: 1000, windowMs: 1000 } });
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
  /** The jobs of one declared change (its resource and definition), newest first. */
  const attemptsOf = async (job: ApplyJob) =>
    ((await service.jobs(job.router_id)) as JobListItem[]).filter((listed) => {
      const marker = parseMarker(listed.description);
      return marker?.resourceTag === tagOf(job.resource) && marker.definitionTag === tagOf(job.job_key);
    });
  /** What an apply killed right after its submission left behind: the attempt, at the service only. */
  const submitAsKilledRun = async (job: ApplyJob, instanceId: string, attempt: number) => {
    const marker = {
      resourceTag: tagOf(job.resource),
      definitionTag: tagOf(job.job_key),
      instanceTag: tagOf(instanceId),
      attempt,
    };
    await client.submitJob(job.router_id, {
      description: markDescription(job.description, marker),
      script: job.script,
      make_backup: job.make_backup,
      express_execute: job.express_execute,
    });
  };

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
    const again = await applyJob(job, context());
    expect(again).toMatchObject({ outcome: "completed", alreadyApplied: true });
    expect(await attemptsOf(job)).toHaveLength(1);
  });

  it("marks the job's description with the attempt, keeping the description a person wrote", async () => {
    const job = declare("/system identity set name=marked", { description: "set the identity" });
    await applyJob(job, context());
    const [listed] = (await attemptsOf(job)) as [JobListItem];
    expect(stripMarker(listed.description)).toBe("set the identity");
    expect(parseMarker(listed.description)).toEqual({
      resourceTag: tagOf(job.resource),
      definitionTag: tagOf(job.job_key),
      instanceTag: tagOf("instance-1"),
      attempt: 1,
    });
  });

  it("writes a rollout job's wave before the marker, where the service (the portal's deploys) can read it", async () => {
    const declared = declare("/system identity set name=waved", { description: "set the identity" });
    const job: ApplyJob = { ...declared, rollout: { wave: 2, waves: 3 } };
    await applyJob(job, context());
    const [listed] = (await attemptsOf(job)) as [JobListItem];
    expect(stripMarker(listed.description)).toBe("set the identity (wave 2/3)");
    expect(parseWave(listed.description)).toEqual({ wave: 2, waves: 3 });
    expect(parseMarker(listed.description)?.resourceTag).toBe(tagOf(job.resource));
  });

  it("runs the same definition again for a new resource instance when this machine reported the first run", async () => {
    const job = declare("/system identity set name=replaced");
    await applyJob(job, context());
    const second = await applyJob(job, context({ instanceId: "instance-2" }));
    expect(second).toMatchObject({ outcome: "completed", alreadyApplied: false });
    // Attempts count on across instances: the second run is attempt 2, by instance-2.
    expect((await attemptsOf(job)).map((listed) => parseMarker(listed.description)?.attempt)).toEqual([2, 1]);
  });

  it("on a fresh machine (no journal), finds the completed attempt at the service and does not run it again", async () => {
    // GIVEN a change applied by an earlier run on another machine, whose Terraform state was lost
    const job = declare("/system identity set name=elsewhere");
    await applyJob(job, context());
    // WHEN a new resource instance applies it from a machine with an empty state directory
    const freshDir = await mkdtemp(join(tmpdir(), "rj-apply-fresh-"));
    try {
      const result = await applyJob(
        job,
        context({ instanceId: "instance-2", journal: new Journal(freshDir) }),
      );
      // THEN it is done without a second job
      expect(result).toMatchObject({ outcome: "completed", alreadyApplied: true });
      expect(await attemptsOf(job)).toHaveLength(1);
    } finally {
      await rm(freshDir, { recursive: true, force: true });
    }
  });

  it("waits for an attempt a killed run submitted, instead of submitting it again", async () => {
    // GIVEN an attempt submitted by an apply that was killed before it heard back
    const job = declare("/system identity set name=resumed", {
      router_id: ROUTER_A2,
      express_execute: false,
    });
    await submitAsKilledRun(job, "instance-1", 1);
    // WHEN Terraform re-runs the provisioner with a new instance, on a fresh machine
    const result = await applyJob(job, context({ instanceId: "instance-2" }));
    // THEN it waited for that job: still exactly one
    expect(result.outcome).toBe("completed");
    expect(lines[0]).toContain("not submitting it again");
    expect(await attemptsOf(job)).toHaveLength(1);
  });

  it("reports a job that failed after the run that submitted it was killed, and does not run it again", async () => {
    const job = declare("/ip address add address=10.9.5.1/24 interface=nope");
    await submitAsKilledRun(job, "instance-1", 1);
    const result = await applyJob(job, context({ instanceId: "instance-2" }));
    expect(result.outcome).toBe("failed");
    expect((result as { reason: string }).reason).toContain("input does not match any value of interface");
    expect(await attemptsOf(job)).toHaveLength(1);
  });

  describe("with what routerjobs deploy read from Terraform's state", () => {
    const knowledgeOf = async (
      job: ApplyJob,
      resource: Partial<ResourceKnowledge>,
    ): Promise<DeployKnowledge> => ({
      version: 1,
      routers: { [job.router_id]: await service.jobs(job.router_id) },
      resources: { [job.resource]: { instances: [], tainted: false, ...resource } },
      tracked: [job.resource],
    });

    it("runs a change again when the state recorded the instance that ran it (terraform apply -replace)", async () => {
      const job = declare("/system identity set name=replace-on-purpose", { router_id: ROUTER_A2 });
      await submitAsKilledRun(job, "instance-1", 1);
      await applyJob(job, context({ instanceId: "instance-1" }));
      const knowledge = await knowledgeOf(job, { instances: [tagOf("instance-1")] });
      const result = await applyJob(
        job,
        context({ instanceId: "instance-2", knowledge, journal: new Journal(join(stateDir, "other")) }),
      );
      expect(result).toMatchObject({ outcome: "completed", alreadyApplied: false });
      expect(await attemptsOf(job)).toHaveLength(2);
    });

    it("does not run again a change whose run reported it and was killed before Terraform recorded it", async () => {
      // GIVEN a change this machine applied and reported (its journal says so), Terraform killed before it
      // wrote the resource to its state: the next deploy's state holds nothing of the resource
      const job = declare("/system identity set name=reported-then-killed", { router_id: ROUTER_A2 });
      expect(await applyJob(job, context({ instanceId: "instance-1" }))).toMatchObject({
        outcome: "completed",
      });
      const knowledge: DeployKnowledge = {
        version: 1,
        routers: { [job.router_id]: await service.jobs(job.router_id) },
        resources: {},
        tracked: [job.resource],
      };
      // WHEN the new instance Terraform creates on the re-run applies it, on the same machine
      const result = await applyJob(job, context({ instanceId: "instance-2", knowledge }));
      // THEN the attempt the killed run made is the change: done, not run twice
      expect(result).toMatchObject({ outcome: "completed", alreadyApplied: true });
      expect(lines.some((line) => line.includes("an interrupted run made it"))).toBe(true);
      expect(await attemptsOf(job)).toHaveLength(1);
      // AND a resource whose identity the state does not keep (a null_resource) is decided as without deploy:
      // this machine reported that attempt, so a new instance (a -replace) runs it again
      const untracked = await applyJob(
        job,
        context({ instanceId: "instance-3", knowledge: { ...knowledge, tracked: [] } }),
      );
      expect(untracked).toMatchObject({ outcome: "completed", alreadyApplied: false });
      expect(await attemptsOf(job)).toHaveLength(2);
    });

    it("does not run again a change whose apply timed out (Terraform tainted it) and whose job completed since", async () => {
      // GIVEN a change whose apply gave up waiting (the router was offline): Terraform tainted the instance that
      // submitted it, and the job completed afterwards
      const job = declare("/system identity set name=late-but-done", { router_id: ROUTER_A2 });
      await submitAsKilledRun(job, "instance-1", 1);
      await eventually(async () =>
        (await attemptsOf(job)).some((listed) => listed.status === "completed") ? true : undefined,
      );
      const knowledge = await knowledgeOf(job, { instances: [tagOf("instance-1")], tainted: true });
      // WHEN the next deploy replaces the tainted resource
      const result = await applyJob(job, context({ instanceId: "instance-2", knowledge }));
      // THEN the completed job is the change: done, not run twice
      expect(result).toMatchObject({ outcome: "completed", alreadyApplied: true });
      expect(await attemptsOf(job)).toHaveLength(1);
    });

    it("reports a failure that came after its apply timed out before running the change again", async () => {
      // GIVEN an apply that gave up waiting for an offline router (Terraform taints its resource)
      const backend = service.backend as SimulatedBackend;
      await client.execute(ROUTER_A, "/system/identity/print");
      backend.setOnline(ROUTER_A, false);
      const job = declare("/ip address add address=10.9.8.1/24 interface=nope", { timeout_ms: 5000 });
      try {
        expect((await applyJob(job, context({ instanceId: "instance-1" }))).outcome).toBe("timeout");
      } finally {
        backend.setOnline(ROUTER_A, true);
      }
      // AND its job ran once the router was back, and failed: nobody heard of it
      await eventually(async () =>
        (await attemptsOf(job)).some((listed) => listed.status === "failed") ? true : undefined,
      );
      const knowledge = await knowledgeOf(job, { instances: [tagOf("instance-1")], tainted: true });
      // WHEN the next deploy replaces the tainted resource, on the same machine
      const reported = await applyJob(job, context({ instanceId: "instance-2", knowledge }));
      // THEN the failure is reported with the router's reason, and the change did not run again
      expect(reported.outcome).toBe("failed");
      expect((reported as { reason: string }).reason).toContain(
        "input does not match any value of interface",
      );
      expect(lines.some((line) => line.includes("it failed after its apply stopped waiting"))).toBe(true);
      expect(await attemptsOf(job)).toHaveLength(1);
      // AND the deploy after that (the failure now reported, the resource tainted again) runs it again
      const retry = await applyJob(
        job,
        context({
          instanceId: "instance-3",
          knowledge: await knowledgeOf(job, { instances: [tagOf("instance-2")], tainted: true }),
        }),
      );
      expect(retry.outcome).toBe("failed");
      expect(await attemptsOf(job)).toHaveLength(2);
    });

    it("reports a destroy job's failure it finds, tells how to run it again, and runs it again when forced", async () => {
      // GIVEN a destroy job that failed, reported on another machine (Terraform keeps no mark of it)
      const job = declare("/ip address add address=10.9.6.1/24 interface=nope", { phase: "destroy" });
      await submitAsKilledRun(job, "instance-1", 1);
      await eventually(async () =>
        (await attemptsOf(job)).some((listed) => listed.status === "failed") ? true : undefined,
      );
      const knowledge = await knowledgeOf(job, { instances: [tagOf("instance-1")] });
      // WHEN the same instance's destroy runs again under deploy on a fresh machine
      const result = await applyJob(job, context({ instanceId: "instance-1", knowledge }));
      // THEN the failure is reported, not run again, and the way to run it again is said
      expect(result.outcome).toBe("failed");
      expect(lines.at(-1)).toContain("run it again with ROUTERJOBS_FORCE=1");
      expect(await attemptsOf(job)).toHaveLength(1);
      // AND forced, it runs again
      const forced = await applyJob(job, context({ instanceId: "instance-1", knowledge, force: true }));
      expect(forced.outcome).toBe("failed");
      expect(await attemptsOf(job)).toHaveLength(2);
    });

    it("decides from the lists deploy read, without a request of its own", async () => {
      // GIVEN a change a run completed, and the lists deploy read afterwards, with that run's instance unrecorded
      const job = declare("/system identity set name=no-look", { router_id: ROUTER_A2 });
      await applyJob(job, context({ journal: new Journal(join(stateDir, "other")) }));
      const knowledge = await knowledgeOf(job, {});
      const spent = () => service.service.app.admittedRequests.get(TOKEN_A.split(":")[0] as string) ?? 0;
      const before = spent();
      // WHEN the provisioner of a new instance runs under deploy
      const result = await applyJob(job, context({ instanceId: "instance-2", knowledge }));
      // THEN it found the completed attempt in deploy's lists and spent no request at all
      expect(result).toMatchObject({ outcome: "completed", alreadyApplied: true });
      expect(spent() - before).toBe(0);
    });
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
    // THEN it is a new attempt (the first stays failed), and it fails again for the same reason
    expect(retry.outcome).toBe("failed");
    expect((await attemptsOf(job)).map((listed) => listed.status)).toEqual(["failed", "failed"]);
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

  it("honours its timeout with a clear message while the router is offline, and the next apply resumes the same job", async () => {
    const backend = service.backend as SimulatedBackend;
    backend.setOnline(ROUTER_A2, false);
    try {
      // 5 s: enough for the submission to be listed with a second suite loading the machine (with 1.5 s it
      // once was not, and the message rightly said "not yet listed").
      const job = declare("/system identity set name=offline", { router_id: ROUTER_A2, timeout_ms: 5000 });
      const started = performance.now();
      const result = await applyJob(job, context());
      const waited = performance.now();
      expect(result.outcome).toBe("timeout");
      expect(lines.at(-1)).toMatch(/not finished after 5s: job .* is pending \(is the router offline\?\)/);
      const timeoutLine = lines.at(-1);
      backend.setOnline(ROUTER_A2, true);
      const resumed = await applyJob({ ...job, timeout_ms: 20_000 }, context());
      expect(resumed.outcome).toBe("completed");
      const jobs = await attemptsOf(job);
      expect(jobs).toHaveLength(1);
      console.log(
        `router offline: apply waited ${((waited - started) / 1000).toFixed(1)} s against its 1.5 s timeout with the job ${result.job?.status}, then stopped: "${timeoutLine}"; ` +
          `with the router back the next apply resumed the same job, ${resumed.job?.status} ${((performance.now() - waited) / 1000).toFixed(1)} s later; ${jobs.length} job with the key`,
      );
    } finally {
      backend.setOnline(ROUTER_A2, true);
    }
  });

  it("stops at its first contact with a service it cannot trust (TLS) with the fix, instead of waiting out its timeout", async () => {
    const tls = await generateLocalTls();
    const server = createHttpsServer({ cert: tls.cert, key: tls.key }, (_request, response) =>
      response.end(),
    );
    let connections = 0;
    const controller = new AbortController();
    const maxAttempts = 2;
    server.on("connection", () => {
      connections++;
      // The client's own retries are the whole patience a first contact gets; more is apply waiting on.
      if (connections > maxAttempts)
        controller.abort(new Error("apply kept trying a service it never reached"));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const untrusting = new RouterJobsClient({
      baseUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token: TOKEN_A,
      budgetDir: stateDir,
      retry: { maxAttempts },
    });
    try {
      const job = declare("/system identity set name=never", { timeout_ms: 600_000 });
      const error = await applyJob(job, context({ client: untrusting, signal: controller.signal })).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).message).toContain("set ROUTERJOBS_CA_FILE or --ca-file");
      expect(connections).toBeLessThanOrEqual(maxAttempts);
    } finally {
      await untrusting.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
