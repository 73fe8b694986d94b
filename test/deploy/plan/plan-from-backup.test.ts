/**
 * `plan --from-backup`: the plan starts from the router's newest backup as the service keeps it (the sites API's
 * `GET /backup/{site}`), not its live configuration, and says which it used; where the API keeps no backups
 * (the spec's), from the live configuration, saying so. Against our service and the stand-in of the public
 * service (written from ALTOSTRAT.md).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../../src/client/client.js";
import { readBackupConfig } from "../../../src/deploy/plan/live-config.js";
import { planStack } from "../../../src/deploy/plan/plan.js";
import { planJson, planText } from "../../../src/deploy/plan/report.js";
import type { StackJob } from "../../../src/deploy/plan/stack-jobs.js";
import { declareJob } from "../../helpers/declared-job.js";
import { waitFor } from "../../helpers/wait-for.js";
import {
  clientOf,
  ROUTER_A,
  ROUTER_A2,
  startTestService,
  type TestService,
  TOKEN_A,
} from "../../service/harness.js";
import { type StandIn, startStandIn } from "../../standin/standin.js";

const STANDIN_TOKEN = "alto_sk_planFromBackup0001";
const dirs: string[] = [];
const budgetDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "rj-plan-backup-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const stackJob = (routerId: string, script: string): StackJob => ({
  address: "terraform_data.dns",
  job: declareJob(routerId, "office/edge/dns", { script }),
});

const submitted = (script: string, backup: boolean) => ({
  description: "configure the router",
  script,
  make_backup: backup,
  express_execute: true,
  needs_acknowledgement: true,
});

describe("plan --from-backup at our service", () => {
  let service: TestService;
  let sdx: RouterJobsClient;
  let spec: RouterJobsClient;

  beforeAll(async () => {
    service = await startTestService({ rateLimit: { count: 1000, windowMs: 1000 } });
    spec = clientOf(service, budgetDir());
    sdx = clientOf(service, budgetDir(), TOKEN_A, "sdx");
    // GIVEN a router whose backup holds DNS 1.1.1.1, and whose live configuration moved on to 8.8.8.8 since
    await spec.execute(ROUTER_A, "/system/identity/set", "=name=edge-backup");
    await spec.execute(ROUTER_A, "/ip/dns/set", "=servers=1.1.1.1");
    const { ack } = await sdx.submitJob(ROUTER_A, submitted("/ip dns set servers=8.8.8.8", true));
    await waitCompleted(sdx, ROUTER_A, ack.request_id);
  });
  afterAll(async () => {
    await sdx?.close();
    await spec?.close();
    await service?.close();
  });

  it("plans on the service's newest backup, names it, and differs from the live configuration", async () => {
    const jobs = [stackJob(ROUTER_A, "/ip dns set servers=9.9.9.9")];
    // WHEN planned from the backup through the sites API
    const plan = await planStack({ jobs, all: true, readConfig: (id) => readBackupConfig(sdx, id) });
    const [router] = plan.routers;
    // THEN the plan says which backup it started from
    expect(router?.configFrom).toMatch(/^the service's backup routerjobs-job-\d+(\.backup)? \(taken \d{4}-/);
    expect(planText(plan)[1]).toMatch(/^ {2}planned on the service's backup routerjobs-job-/);
    // AND the change is seen against the backup's DNS (1.1.1.1), not the live one (8.8.8.8)
    const dns = router?.diff.find((menu) => menu.menu === "/ip dns");
    expect(dns?.changed[0]?.before).toContain("servers=1.1.1.1");
    expect(dns?.changed[0]?.after).toContain("servers=9.9.9.9");
  });

  it("falls back to the live configuration with the spec's API, which keeps no backups, and says so", async () => {
    const jobs = [stackJob(ROUTER_A, "/ip dns set servers=9.9.9.9")];
    const plan = await planStack({ jobs, all: true, readConfig: (id) => readBackupConfig(spec, id) });
    const [router] = plan.routers;
    expect(router?.configFrom).toBe(
      "the live configuration (/export): the spec API keeps no backups of its own",
    );
    expect(router?.diff.find((menu) => menu.menu === "/ip dns")?.changed[0]?.before).toContain(
      "servers=8.8.8.8",
    );
    expect((planJson(plan) as { routers: { config_from: string }[] }).routers[0]?.config_from).toBe(
      router?.configFrom,
    );
  });

  it("reports a router the service keeps no backup of as that router's error, naming the way out", async () => {
    await spec.execute(ROUTER_A2, "/system/identity/set", "=name=no-backups");
    const plan = await planStack({
      jobs: [stackJob(ROUTER_A2, "/ip dns set servers=9.9.9.9")],
      all: true,
      readConfig: (id) => readBackupConfig(sdx, id),
    });
    expect(plan.failed).toBe(1);
    expect(plan.routers[0]?.error).toBe(
      `router ${ROUTER_A2}: the service keeps no backup of it (--from-backup needs a job that took one); plan without --from-backup reads the live configuration`,
    );
  });
});

describe("plan --from-backup at the stand-in of the public service", () => {
  const siteId = randomUUID();
  let standIn: StandIn;
  let client: RouterJobsClient;

  beforeAll(async () => {
    standIn = await startStandIn({
      teams: [{ id: randomUUID(), tokens: [STANDIN_TOKEN], sites: [siteId] }],
      tickMs: 600_000,
      rateLimitMax: 10_000,
    });
    client = new RouterJobsClient({
      baseUrl: standIn.url,
      token: STANDIN_TOKEN,
      api: "sdx",
      budgetDir: budgetDir(),
      rateLimit: { count: 1000, windowMs: 1000 },
    });
    // GIVEN a site that ran one change, then a second with a backup (the backup holds the first)
    await client.submitJob(siteId, submitted("/system identity set name=first", false));
    const { ack } = await client.submitJob(siteId, submitted("/system identity set name=second", true));
    await standIn.waitForStatus(ack.request_id, "completed");
  });
  afterAll(async () => {
    await client?.close();
    await standIn?.close();
  });

  it("plans on the documented newest backup (<epoch>.rsc) without any synchronous command", async () => {
    const before = standIn.requests().length;
    const plan = await planStack({
      jobs: [stackJob(siteId, "/system identity set name=third")],
      all: true,
      readConfig: (id) => readBackupConfig(client, id),
    });
    const [router] = plan.routers;
    expect(router?.error).toBeUndefined();
    expect(router?.configFrom).toMatch(/^the service's backup \d+\.rsc \(taken /);
    expect(router?.diff).toEqual([
      expect.objectContaining({
        menu: "/system identity",
        changed: [{ before: "set name=first", after: "set name=third" }],
      }),
    ]);
    // Two reads: the list of backups and the newest one's content.
    const paths = standIn
      .requests()
      .slice(before)
      .map((request) => `${request.method} ${request.path}`);
    expect(paths).toEqual([
      `GET /backup/${siteId}`,
      expect.stringMatching(new RegExp(`^GET /backup/${siteId}/\\d+\\.rsc$`)),
    ]);
  });
});

async function waitCompleted(client: RouterJobsClient, routerId: string, jobId: string): Promise<void> {
  const job = await waitFor(
    async () => {
      const seen = await client.getJob(routerId, jobId);
      return seen.status === "completed" || seen.status === "failed" ? seen : undefined;
    },
    { what: `job ${jobId} to finish` },
  );
  expect(job.status, job.error ?? "").toBe("completed");
}
