/**
 * A submission is one statement in the usual case (src/service/jobs/submit.ts): the idempotency key, the
 * router's next sequence number and the job, all or nothing. On both stores: a key's replays, conflicts and
 * reuse after it expired; a removed router; a job terminal at once commits with its notification. On
 * PostgreSQL, submissions race for real (a pool of ten connections): many submissions of one new key make one
 * job, and the router's sequence numbers stay dense.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobRequest } from "../../../src/contract/job.js";
import { removeRouter } from "../../../src/service/auth/directory.js";
import { type Database, openDatabase } from "../../../src/service/database/database.js";
import { migrate } from "../../../src/service/database/migrations.js";
import { type SubmitInput, type SubmitResult, submitJob } from "../../../src/service/jobs/submit.js";
import { SERVICE_MIGRATIONS } from "../../../src/service/schema.js";
import { applySeed } from "../../../src/service/seed.js";
import { postgresAvailability, startPostgres, type TestPostgres } from "../../helpers/postgres.js";
import { eventually, ROUTER_A, ROUTER_A2, ROUTER_B, SEED, TEAM_A } from "../harness.js";
import { openSeededPostgres } from "./fixture.js";

const TTL_MS = 60_000;

const request = (script: string, more: Partial<JobRequest> = {}): JobRequest => ({
  description: "submission",
  script,
  make_backup: false,
  express_execute: false,
  needs_acknowledgement: true,
  ...more,
});

const input = (routerId: string, job: JobRequest, key = randomUUID(), now = new Date()): SubmitInput => ({
  teamId: TEAM_A,
  routerId,
  request: job,
  idempotencyKey: key,
  requestId: randomUUID(),
  now,
  idempotencyTtlMs: TTL_MS,
});

const jobId = (result: SubmitResult) => ("job" in result ? result.job.id : undefined);

async function storedJob(db: Database, id: string | undefined): Promise<unknown> {
  return (await db.query("SELECT * FROM jobs WHERE id = $1", [id])).rows[0];
}

async function seqIds(db: Database, routerId: string): Promise<number[]> {
  const { rows } = await db.query<{ seq_id: number }>(
    "SELECT seq_id FROM jobs WHERE router_id = $1 ORDER BY seq_id",
    [routerId],
  );
  return rows.map((row) => row.seq_id);
}

const postgres = postgresAvailability();
const stores: [string, () => Promise<{ db: Database; stop(): Promise<void> }>][] = [
  [
    "PGlite",
    async () => {
      const db = await openDatabase({ location: "memory://" });
      return { db, stop: () => db.close() };
    },
  ],
];
if (postgres.available)
  stores.push([
    "PostgreSQL",
    async () => {
      const server: TestPostgres = await startPostgres();
      const db = await openDatabase({ location: server.url, maxConnections: 10 });
      return {
        db,
        stop: async () => {
          await db.close();
          await server.stop();
        },
      };
    },
  ]);

describe.each(stores)("submitting a job on %s", (_name, open) => {
  let db: Database;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, stop } = await open());
    await migrate(db, "service", SERVICE_MIGRATIONS);
    await applySeed(db, SEED as never);
  });
  afterAll(async () => stop?.());

  it("creates the job with the router's next number; the same key and body answer with it, a new body conflicts", async () => {
    const before = await seqIds(db, ROUTER_A);
    const key = randomUUID();
    const created = await submitJob(db, input(ROUTER_A, request(":put 1"), key));
    expect(created.kind).toBe("created");
    const job = (created as { job: { seq_id: number; status: string; completed_at: Date | null } }).job;
    expect(job.seq_id).toBe((before.at(-1) ?? 0) + 1);
    expect(job.status).toBe("pending");
    expect(job.completed_at).toBeNull();
    // The job answered is built before the insert (jobs.ts, newJob): it is the row the database keeps.
    expect(job).toEqual(await storedJob(db, jobId(created)));

    const again = await submitJob(db, input(ROUTER_A, request(":put 1"), key));
    expect(again).toMatchObject({ kind: "replayed" });
    expect(jobId(again)).toBe(jobId(created));
    expect(await submitJob(db, input(ROUTER_A, request(":put 2"), key))).toEqual({ kind: "conflict" });
    // The same key and body for another router is another request.
    expect(await submitJob(db, input(ROUTER_A2, request(":put 1"), key))).toEqual({ kind: "conflict" });
    // Neither took a number: the next job follows at once.
    const next = await submitJob(db, input(ROUTER_A, request(":put 3")));
    expect((next as { job: { seq_id: number } }).job.seq_id).toBe(job.seq_id + 1);
  });

  it("a key is free again once it has expired: a new job, with the next number", async () => {
    const key = randomUUID();
    const first = await submitJob(
      db,
      input(ROUTER_A, request(":put 4"), key, new Date(Date.now() - 2 * TTL_MS)),
    );
    const second = await submitJob(db, input(ROUTER_A, request(":put 5"), key));
    expect(second.kind).toBe("created");
    expect(jobId(second)).not.toBe(jobId(first));
    const third = await submitJob(db, input(ROUTER_A, request(":put 5"), key));
    expect(jobId(third)).toBe(jobId(second));
  });

  it("another team's router, an unknown or a removed one is not found, and the key stays free", async () => {
    const key = randomUUID();
    expect(await submitJob(db, input(ROUTER_B, request(":put 6"), key))).toEqual({
      kind: "router_not_found",
    });
    expect(await submitJob(db, input(randomUUID(), request(":put 6"), key))).toEqual({
      kind: "router_not_found",
    });
    expect(await submitJob(db, input(ROUTER_A, request(":put 6"), key))).toMatchObject({ kind: "created" });

    const removedRouter = randomUUID();
    await db.query("INSERT INTO routers (id, team_id, name) VALUES ($1, $2, 'removed')", [
      removedRouter,
      TEAM_A,
    ]);
    await removeRouter(db, removedRouter, new Date());
    expect(await submitJob(db, input(removedRouter, request(":put 7")))).toEqual({
      kind: "router_not_found",
    });
    expect(await seqIds(db, removedRouter)).toEqual([]);
  });

  it("a job terminal at once commits with its notification; without a URL, with none", async () => {
    const notified = await submitJob(
      db,
      input(
        ROUTER_A,
        request(":put 8", { needs_acknowledgement: false, notify_url: "https://hooks.test/a" }),
      ),
    );
    const silent = await submitJob(db, input(ROUTER_A, request(":put 9", { needs_acknowledgement: false })));
    for (const result of [notified, silent]) {
      expect(result.kind).toBe("created");
      const job = (result as { job: { status: string; completed_at: Date | null } }).job;
      expect(job).toMatchObject({ status: "completed", completed_at: expect.any(Date) });
      expect(job).toEqual(await storedJob(db, jobId(result)));
    }
    const outbox = async (id: string | undefined) =>
      (await db.query("SELECT url FROM outbox WHERE job_id = $1", [id])).rows;
    expect(await outbox(jobId(notified))).toEqual([{ url: "https://hooks.test/a" }]);
    expect(await outbox(jobId(silent))).toEqual([]);
  });

  it("a key held at the insert and free at the look-up is tried again; held and free three times over, a conflict", async () => {
    const key = randomUUID();
    const holder = await submitJob(db, input(ROUTER_A, request(":put held"), key));
    const hold = () =>
      db.query(
        `INSERT INTO idempotency_keys (team_id, idempotency_key, job_id, request_hash, created_at)
         VALUES ($1, $2, $3, 'held', now()) ON CONFLICT DO NOTHING`,
        [TEAM_A, key, jobId(holder)],
      );
    const release = () => db.query("DELETE FROM idempotency_keys WHERE idempotency_key = $1", [key]);
    // The key's holder goes (expired and purged, say) between the insert and the look-up, `times` times.
    const vanishing = (times: number): Database => {
      let left = times;
      return {
        ...db,
        query: async (sql, params) => {
          const creating = sql.includes("WITH keyed AS");
          if (creating && left > 0) await hold();
          const result = await db.query(sql, params);
          if (creating && left > 0) {
            left--;
            await release();
          }
          return result as never;
        },
      };
    };
    await release();
    const second = await submitJob(vanishing(1), input(ROUTER_A, request(":put again"), key));
    expect(second.kind).toBe("created");
    expect(jobId(second)).not.toBe(jobId(holder));

    await release();
    expect(await submitJob(vanishing(3), input(ROUTER_A, request(":put lost"), key))).toEqual({
      kind: "conflict",
    });
  });

  it("twelve submissions of one new key at once make one job; with twelve others, the numbers stay dense", async () => {
    const router = randomUUID();
    await db.query("INSERT INTO routers (id, team_id, name) VALUES ($1, $2, 'racing')", [router, TEAM_A]);
    const key = randomUUID();
    const results = await Promise.all([
      ...Array.from({ length: 12 }, () => submitJob(db, input(router, request(":put same"), key))),
      ...Array.from({ length: 12 }, (_, index) => submitJob(db, input(router, request(`:put ${index}`)))),
    ]);
    const same = results.slice(0, 12);
    expect(same.filter((result) => result.kind === "created")).toHaveLength(1);
    expect(same.filter((result) => result.kind === "replayed")).toHaveLength(11);
    expect(new Set(same.map(jobId)).size).toBe(1);
    expect(results.slice(12).every((result) => result.kind === "created")).toBe(true);
    expect(await seqIds(db, router)).toEqual(Array.from({ length: 13 }, (_, index) => index + 1));
  });
});

describe.skipIf(!postgres.available)("submitting while the router is removed, on PostgreSQL", () => {
  let db: Database;
  let other: pg.Client;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, other, close } = await openSeededPostgres());
  });
  afterAll(async () => close?.());

  it("a key claimed for a router removed after the statement began is given back: not found, the key free", async () => {
    const router = randomUUID();
    await db.query("INSERT INTO routers (id, team_id, name) VALUES ($1, $2, 'going')", [router, TEAM_A]);
    // GIVEN the router's removal holds its row, not yet committed
    await other.query("BEGIN");
    await other.query("UPDATE routers SET removed_at = now() WHERE id = $1", [router]);
    // WHEN a submission claims its key (the router is there in its snapshot) and waits for the router's row
    const key = randomUUID();
    const submitting = submitJob(db, input(router, request(":put 1"), key));
    await eventually(async () => {
      const { rows } = await other.query(
        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      return rows.length > 0 ? true : undefined;
    });
    await other.query("COMMIT");
    // THEN the router is not found, and the key names nothing: it is free again
    expect(await submitting).toEqual({ kind: "router_not_found" });
    const { rows } = await db.query("SELECT 1 FROM idempotency_keys WHERE idempotency_key = $1", [key]);
    expect(rows).toEqual([]);
    expect(await seqIds(db, router)).toEqual([]);
  });
});
