/**
 * `routerjobs apply` against a router with a long history (10,000 jobs): its looks at the job list ask the
 * service for this resource's markers only, so they cost the same as on a new router; and a job JSON without
 * `express_execute` (the constructs' default) is submitted as express.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../../src/client/client.js";
import type { ApplyJob } from "../../../src/contract/apply-job.js";
import { markDescription, tagOf } from "../../../src/contract/attempt-marker.js";
import { applyJob } from "../../../src/deploy/apply/apply.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import { byteCounter } from "../../client/helpers/byte-relay.js";
import { declareJob } from "../../helpers/declared-job.js";
import { ROUTER_A2, startTestService, TEAM_A, type TestService, TOKEN_A } from "../../service/harness.js";

const HISTORY = 10_000;
const RESOURCE = "office/edge-a2/identity";

/** A job as the constructs write it by default: no `express_execute`, apply decides. */
function declare(script: string): ApplyJob {
  return declareJob(ROUTER_A2, RESOURCE, { script, makeBackup: false, express: null, timeoutMs: 20_000 });
}

/** 10,000 jobs of other resources, straight into the table, with `first` (if any) as the oldest, seq 1. */
async function fillHistory(svc: TestService, first?: string): Promise<void> {
  await svc.service.app.db.query(
    `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
       description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at)
     SELECT gen_random_uuid(), $1, $2, n, 't' || n, gen_random_uuid(), gen_random_uuid(), 'h',
       CASE WHEN n = 1 AND $4::text IS NOT NULL THEN $4::text ELSE 'Other change ' || n || ' [rj:zzzz-ef23-gh45-1]' END,
       '/log info x', false, false, true, 'completed', 'done', now()
     FROM generate_series(1, $3::int) AS n`,
    [ROUTER_A2, TEAM_A, HISTORY, first ?? null],
  );
  await svc.service.app.db.query("UPDATE routers SET next_seq = $2 WHERE id = $1", [ROUTER_A2, HISTORY + 1]);
}

describe("apply's looks at a 10,000-job router", () => {
  let svc: TestService;
  let stateDir: string;
  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "rj-lookup-"));
    // A tick far beyond the job's timeout: only an express submission can complete in time.
    svc = await startTestService({ tickMs: 600_000, rateLimit: { count: 1000, windowMs: 1000 } });
  });
  afterAll(async () => {
    await svc?.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  const admitted = () => [...svc.service.app.admittedRequests.values()].reduce((a, b) => a + b, 0);
  const run = async (job: ApplyJob, instanceId: string, api: "spec" | "sdx" = "spec") => {
    const relay = await byteCounter(new URL(svc.url));
    const client = new RouterJobsClient({
      api,
      baseUrl: relay.url,
      token: TOKEN_A,
      ca: svc.service.ca,
      budgetDir: stateDir,
      rateLimit: { count: 1000, windowMs: 1000 },
    });
    const before = admitted();
    try {
      const result = await applyJob(job, {
        client,
        journal: new Journal(join(stateDir, instanceId)),
        instanceId,
        write: () => {},
      });
      return { result, requests: admitted() - before, bytes: relay.received() };
    } finally {
      await client.close();
      await relay.close();
    }
  };

  it("finds the resource's attempt at the bottom of the history with one small request", async () => {
    const job = declare("/system identity set name=old");
    const marker = {
      resourceTag: tagOf(RESOURCE),
      definitionTag: tagOf(job.job_key),
      instanceTag: tagOf("i-1"),
    };
    await fillHistory(svc, markDescription("set identity", { ...marker, attempt: 1 }));
    const { result, requests, bytes } = await run(job, "i-1");
    expect(result).toMatchObject({ outcome: "completed", alreadyApplied: true });
    expect(requests).toBe(1);
    // One job's worth of answer, not the 10,000 jobs' ~4 MB.
    expect(bytes).toBeLessThan(20_000);
  });

  it("sdx: finds the same attempt, at the bottom of the sites list, with that list's one request", async () => {
    // GIVEN the attempt the test above found: the oldest of 10,000 jobs. The sites API filters nothing and our
    // service answers its list in one piece (no pages), so the lookup is that one request, whatever it holds.
    // The sites API tells a job's state by its timestamps alone: the seeded row gets the one a run writes.
    await svc.service.app.db.query(
      "UPDATE jobs SET started_at = now(), completed_at = now() WHERE router_id = $1 AND seq_id = 1",
      [ROUTER_A2],
    );
    const job = declare("/system identity set name=old");
    const { result, requests } = await run(job, "i-1", "sdx");
    expect(result).toMatchObject({ outcome: "completed", alreadyApplied: true });
    expect(requests).toBe(1);
  });

  it("submits a job without express_execute as express and confirms it by its marker", async () => {
    const { result, requests, bytes } = await run(declare("/system identity set name=new"), "i-2");
    expect(result.outcome).toBe("completed");
    const { rows } = await svc.service.app.db.query<{ express_execute: boolean }>(
      "SELECT express_execute FROM jobs WHERE router_id = $1 AND seq_id = $2",
      [ROUTER_A2, HISTORY + 1],
    );
    expect(rows[0]?.express_execute).toBe(true);
    // The lookup, the submission and the looks until completed: each answer one job or none.
    expect(requests).toBeGreaterThanOrEqual(3);
    expect(bytes / requests).toBeLessThan(20_000);
  });

  it("sdx: confirms by reading the one job, not the list: the history is read once, by the lookup", async () => {
    const listBytes = Buffer.byteLength(
      JSON.stringify((await svc.call("GET", `/sites/${ROUTER_A2}/jobs`)).body),
    );
    expect(listBytes).toBeGreaterThan(1_000_000);
    const { result, requests, bytes } = await run(
      declare("/system identity set name=sdx-one-job"),
      "i-3",
      "sdx",
    );
    expect(result.outcome).toBe("completed");
    // The lookup (the sites API filters nothing: the whole list), the submission and the looks at the job:
    // with each look a list, two looks already cost two lists more.
    expect(requests).toBeGreaterThanOrEqual(3);
    expect(bytes).toBeLessThan(listBytes * 1.5);
  });
});
