/**
 * `rollback: "on-failure"` through the sites API (`sdx`), which keeps backups of its own: the restore reads the
 * backup the failed job's `associated_backup` names from the service (`GET /backup/{site}/{file}`), writes it
 * to the router and resets the configuration to it. Against our service (a simulated router, whose state is
 * checked) and against the stand-in of the public service (written from ALTOSTRAT.md: what it ran is checked).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../../src/client/client.js";
import type { ApplyJob } from "../../../src/contract/apply-job.js";
import { type ApplyContext, applyJob } from "../../../src/deploy/apply/apply.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import {
  serviceBackupFile,
  serviceBackupPathOnRouter,
  serviceRestoreScript,
} from "../../../src/deploy/rollback/rollback-script.js";
import { SimulatedBackend, SimulatedRouter } from "../../../src/routeros/simulator/index.js";
import { declareJob } from "../../helpers/declared-job.js";
import { waitFor } from "../../helpers/wait-for.js";
import { clientOf, ROUTER_A, startTestService, type TestService, TOKEN_A } from "../../service/harness.js";
import { type StandIn, startStandIn } from "../../standin/standin.js";

const STANDIN_TOKEN = "alto_sk_rollbackServiceBackup01";

function declare(routerId: string, script: string, resource = "office/edge-a/vlan"): ApplyJob {
  return declareJob(routerId, resource, {
    description: "add the guest vlan",
    script,
    makeBackup: true,
    timeoutMs: 20_000,
    rollback: "on-failure",
  });
}

const halfDone = (name: string, subnet: number) =>
  `/system identity set name="${name}"\n/ip address add address=10.9.${subnet}.1/24 interface=ether2\n:error "gateway unreachable"`;

describe("the service's backup as a restore", () => {
  it("names the file after the last / of associated_backup, and nothing for a job without one", () => {
    expect(serviceBackupFile("6f1c0d4e/1732567800.rsc")).toBe("1732567800.rsc");
    expect(serviceBackupFile("routerjobs-job-12")).toBe("routerjobs-job-12");
    expect(serviceBackupFile(null)).toBeUndefined();
    expect(serviceBackupFile("site/")).toBeUndefined();
  });

  it("writes the export to a file of a safe name and resets to it, quoting what the export holds", async () => {
    const router = new SimulatedRouter({ name: "edge", delayScale: 0 });
    await router.runSource('/system identity set name="be\\$fore \\"q\\""');
    const content = (await router.runSource("/export")).join("\n");
    await router.runSource('/system identity set name="after"');
    // WHEN the restore script runs where the service runs scripts itself (no script job)
    await router.runSource(serviceRestoreScript("../1732567800.rsc", content));
    // THEN the router holds the export under a safe name and is back to it
    expect(serviceBackupPathOnRouter("../1732567800.rsc")).toBe("routerjobs-restore-___1732567800.rsc");
    expect(router.readFile("routerjobs-restore-___1732567800.rsc")).toBe(content);
    expect((await router.runSource("/export")).join("\n")).toBe(content);
  });
});

describe("rollback on failure through the sites API, at our service", () => {
  let service: TestService;
  let backend: SimulatedBackend;
  let stateDir: string;
  let client: RouterJobsClient;
  let lines: string[];

  beforeAll(async () => {
    backend = new SimulatedBackend({ seed: 7, rebootOfflineMs: 300 });
    service = await startTestService({ rateLimit: { count: 1000, windowMs: 1000 } }, backend);
  });
  afterAll(async () => service.close());
  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "rj-rollback-sdx-"));
    client = clientOf(service, stateDir, TOKEN_A, "sdx");
    lines = [];
    await backOnline();
    // Attaches the router and gives every test the same known identity (the spec's synchronous route).
    const setup = clientOf(service, stateDir);
    await setup.execute(ROUTER_A, "/system/identity/set", "=name=edge-a");
    await setup.close();
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
  const backOnline = () =>
    waitFor(() => !backend.isRebooting(ROUTER_A), { what: "edge-a to be back from its reboot" });
  const exportOf = async () => {
    await backOnline();
    return (await backend.router(ROUTER_A).runSource("/export")).join("\n");
  };

  it("restores the router from the service's backup of the failed job, and says which backup", async () => {
    // GIVEN a router's configuration and a change with rollback on failure that fails half way
    const before = await exportOf();
    // WHEN apply runs it through the sites API
    const result = await applyJob(declare(ROUTER_A, halfDone("edge sdx", 11)), context());
    // THEN it fails with the router's reason, and the rollback names the service's backup
    expect(result.outcome).toBe("failed");
    if (result.outcome !== "failed") return;
    expect(result.reason).toContain("gateway unreachable");
    expect(result.reason).toMatch(
      /rolled back: the router is restored from the service's backup routerjobs-job-\d+(\.backup)? \(restore job [^)]+\)/,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/: rollback: restoring the router from the service's backup/),
    );
    // AND the router is back to the configuration before the job
    expect(await exportOf()).toBe(before);
    // AND the restore job carried the backup's text, read from the service
    const restore = (await client.listJobs(ROUTER_A)).find((job) =>
      job.description.startsWith("routerjobs rollback: restore the service's backup"),
    );
    expect(restore?.status).toBe("completed");
    expect(restore?.make_backup).toBe(false);
  });

  it("finds the restore already made when the same failure is applied again, and restores once", async () => {
    const job = declare(ROUTER_A, halfDone("edge again", 12), "office/edge-a/again");
    const first = await applyJob(job, context());
    expect(first.outcome).toBe("failed");
    const restores = async () =>
      (await client.listJobs(ROUTER_A)).filter((item) => item.description.includes("[rj-restore:")).length;
    const count = await restores();
    // WHEN a second apply adopts the same failed attempt (another machine: a fresh journal)
    const otherDir = await mkdtemp(join(tmpdir(), "rj-rollback-sdx-other-"));
    try {
      const again = await applyJob(job, { ...context(), journal: new Journal(otherDir) });
      // THEN it reports the failure again and submits no second restore
      expect(again.outcome).toBe("failed");
      expect(await restores()).toBe(count);
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });
});

describe("rollback on failure through the sites API, at the stand-in of the public service", () => {
  const siteId = randomUUID();
  let standIn: StandIn;
  let stateDir: string;
  let client: RouterJobsClient;

  beforeAll(async () => {
    standIn = await startStandIn({
      teams: [{ id: randomUUID(), tokens: [STANDIN_TOKEN], sites: [siteId] }],
      tickMs: 600_000,
      rateLimitMax: 10_000,
    });
  });
  afterAll(async () => standIn.close());
  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "rj-rollback-standin-"));
    client = new RouterJobsClient({
      baseUrl: standIn.url,
      token: STANDIN_TOKEN,
      api: "sdx",
      budgetDir: stateDir,
      rateLimit: { count: 1000, windowMs: 1000 },
      retry: { baseDelayMs: 10, maxDelayMs: 50 },
    });
  });
  afterEach(async () => {
    await client.close();
    await rm(stateDir, { recursive: true, force: true });
  });
  const context = (): ApplyContext => ({
    client,
    journal: new Journal(stateDir),
    instanceId: "instance-1",
    write: () => {},
  });

  it("reads the backup the job's associated_backup names and runs it back on the device", async () => {
    // GIVEN a site that ran one change, then a change with rollback that fails
    await client.submitJob(siteId, {
      description: "first change",
      script: "/system identity set name=first",
      make_backup: false,
      express_execute: true,
      needs_acknowledgement: true,
    });
    const result = await applyJob(declare(siteId, ':error "gateway unreachable"'), context());
    // THEN the rollback names the documented file (<epoch>.rsc) and the restore job completed
    expect(result.outcome).toBe("failed");
    if (result.outcome !== "failed") return;
    expect(result.reason).toMatch(
      /gateway unreachable.*; rolled back: the router is restored from the service's backup \d+\.rsc \(restore job /,
    );
    const failed = standIn.jobs(siteId).find((job) => job.description.startsWith("add the guest vlan"));
    const filename = failed?.associatedBackup?.split("/").at(-1) ?? "";
    const backup = await client.getBackup(siteId, filename);
    expect(backup).toContain("/system identity set name=first");
    // AND what the device ran last is the restore: the backup's text written to a file, then a reset to it
    const restore = standIn.runs(siteId).at(-1);
    expect(restore?.description).toMatch(
      /^routerjobs rollback: restore the service's backup \d+\.rsc \[rj-restore:/,
    );
    expect(restore?.script).toContain("/file add name=");
    expect(restore?.script).toContain("/system identity set name=first");
    expect(restore?.script).toContain("run-after-reset=");
  });

  it("reports a backup too long for one sdx job as not rolled back, and submits nothing", async () => {
    // GIVEN a site whose history makes a backup longer than the sites API's 10,000 characters
    for (const part of [1, 2]) {
      await client.submitJob(siteId, {
        description: `long change ${part}`,
        script: `:log info "${"x".repeat(6_000)}"`,
        make_backup: false,
        express_execute: true,
        needs_acknowledgement: true,
      });
    }
    const before = standIn.runs(siteId).length;
    const result = await applyJob(
      declare(siteId, ':error "gateway unreachable"', "office/edge-a/long"),
      context(),
    );
    expect(result.outcome).toBe("failed");
    if (result.outcome !== "failed") return;
    expect(result.reason).toMatch(
      /not rolled back: the service's backup \d+\.rsc makes a restore script of \d+ characters, and one sdx job takes at most 10000; restore it by hand \(routerjobs backups get\)/,
    );
    // Only the failed job ran: no restore was submitted.
    expect(standIn.runs(siteId).length).toBe(before + 1);
  });
});
