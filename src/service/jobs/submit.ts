import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { JobRequest } from "../../contract/job.js";
import type { Database, Queryable } from "../database/database.js";
import { noteJobsAdded } from "./planner-statistics.js";
import { enqueueNotification, type JobRow } from "./rows.js";

export interface SubmitInput {
  readonly teamId: string;
  readonly routerId: string;
  readonly request: JobRequest;
  readonly idempotencyKey: string;
  readonly requestId: string;
  readonly now: Date;
  /** Replays older than this are forgotten and the key may be used again. */
  readonly idempotencyTtlMs: number;
}

export type SubmitResult =
  | { readonly kind: "created"; readonly job: JobRow }
  | { readonly kind: "replayed"; readonly job: JobRow }
  | { readonly kind: "conflict" }
  | { readonly kind: "router_not_found" };

/** The request's fields after defaults, in the order the hash takes them. */
const requestFields = (request: JobRequest) =>
  [
    request.description,
    request.script,
    request.make_backup,
    request.express_execute,
    request.needs_acknowledgement,
    request.notify_url ?? null,
  ] as const;

/** Hash of what makes two submissions "the same": the router and the request after defaults. */
export function requestHash(routerId: string, request: JobRequest): string {
  const canonical = JSON.stringify([routerId, ...requestFields(request)]);
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * Creates a job, or answers with the job an earlier submission of the same idempotency key created.
 *
 * One statement in the usual case (`CREATE_JOB`): on the embedded store each statement is a round trip to the
 * database's thread, which costs about as much CPU as PGlite's own work for a small statement, and on
 * PostgreSQL a round trip between processes; the transaction it replaces took five (BEGIN, three statements,
 * COMMIT). A job that is terminal at once and has a notification to send still takes a transaction: its
 * outbox row must commit with it (figures: docs/performance.md).
 */
export async function submitJob(db: Database, input: SubmitInput): Promise<SubmitResult> {
  const notifiesAtOnce = !input.request.needs_acknowledgement && Boolean(input.request.notify_url);
  const result = notifiesAtOnce
    ? await db.transaction(async (tx) => {
        const inserted = await insertJob(tx, input);
        if (inserted.kind === "created") await enqueueNotification(tx, inserted.job.id, input.now);
        return inserted;
      })
    : await insertJob(db, input);
  if (result.kind === "created") noteJobsAdded(db);
  return result;
}

/**
 * Claims the idempotency key, takes the router's next sequence number and inserts the job, all or nothing.
 * The key comes first: a concurrent submission of the same key waits on it (PostgreSQL checks a conflict
 * against committed rows, not the statement's snapshot) and then finds it held, so it takes no number and
 * `seq_id` stays dense, as people read the job list by it. The router's row lock then orders submissions to
 * one router. Nothing is inserted when the key is held by a live (unexpired) submission or the router is not
 * the team's (or removed): `FIND_KEYED_JOB` then says which.
 */
const CREATE_JOB = `
  WITH keyed AS (
    INSERT INTO idempotency_keys (team_id, idempotency_key, job_id, request_hash, created_at)
    SELECT $3::uuid, $5::uuid, $1::uuid, $7::text, $15::timestamptz
    WHERE EXISTS (SELECT 1 FROM routers WHERE id = $2 AND team_id = $3 AND removed_at IS NULL)
    ON CONFLICT (team_id, idempotency_key) DO UPDATE
      SET job_id = EXCLUDED.job_id, request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at
      WHERE idempotency_keys.created_at < $17
    RETURNING job_id
  ), taken AS (
    UPDATE routers SET next_seq = next_seq + 1
    WHERE id = $2 AND team_id = $3 AND removed_at IS NULL AND EXISTS (SELECT 1 FROM keyed)
    RETURNING next_seq - 1 AS seq
  ), inserted AS (
    INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
      description, script, make_backup, express_execute, needs_acknowledgement, notify_url, status, execution,
      created_at, completed_at)
    SELECT $1::uuid, $2::uuid, $3::uuid, taken.seq, $4::text, $5::uuid, $6::uuid, $7::text, $8::text, $9::text,
      $10::boolean, $11::boolean, $12::boolean, $13::text, $14::text, 'queued', $15::timestamptz,
      $16::timestamptz
    FROM taken
    RETURNING seq_id
  )
  SELECT inserted.seq_id FROM (SELECT 1) AS one LEFT JOIN inserted ON true`;

/**
 * When no job was inserted: whether the router is the team's, and the job the key names. A key claimed for a
 * router removed in between (on PostgreSQL, after the statement's snapshot) names a job that was never
 * inserted ($4): it is taken back, so that the key is free again.
 */
const FIND_KEYED_JOB = `
  WITH unclaimed AS (
    DELETE FROM idempotency_keys
    WHERE team_id = $2 AND idempotency_key = $3 AND job_id = $4
      AND NOT EXISTS (SELECT 1 FROM jobs WHERE id = $4)
    RETURNING 1
  )
  SELECT EXISTS (SELECT 1 FROM routers WHERE id = $1 AND team_id = $2 AND removed_at IS NULL) AS router_found,
    k.request_hash AS key_hash, j.*
  FROM (SELECT 1) AS one
  LEFT JOIN idempotency_keys k ON k.team_id = $2 AND k.idempotency_key = $3 AND k.job_id <> $4
  LEFT JOIN jobs j ON j.id = k.job_id`;

/**
 * The job a submission inserts, whole but for its number, which the router's row hands out: the statement
 * answers only that. Reading every column back would only parse a row of 25 columns on the store's thread and
 * clone it to the caller, a sizeable share of a small statement's cost on PGlite (figures:
 * docs/performance.md). `test/service/jobs/submit.test.ts` holds it to the row the database keeps.
 */
export function newJob(input: SubmitInput, hash: string): Omit<JobRow, "seq_id"> {
  const { request } = input;
  const immediate = !request.needs_acknowledgement;
  return {
    id: randomUUID(),
    router_id: input.routerId,
    team_id: input.teamId,
    token: randomBytes(24).toString("base64url"),
    idempotency_key: input.idempotencyKey,
    request_id: input.requestId,
    request_hash: hash,
    description: request.description,
    script: request.script,
    make_backup: request.make_backup,
    express_execute: request.express_execute,
    needs_acknowledgement: request.needs_acknowledgement,
    notify_url: request.notify_url ?? null,
    status: immediate ? "completed" : "pending",
    execution: "queued",
    claimed_by: null,
    created_at: input.now,
    loaded_at: null,
    started_at: null,
    completed_at: immediate ? input.now : null,
    failed_at: null,
    deleted_at: null,
    error: null,
    backup_name: null,
  };
}

/**
 * A key found held and then free again (its holder expired in between, or rolled back) is looked at again;
 * after this many attempts the submission is refused as a conflict.
 */
const CREATE_ATTEMPTS = 3;

async function insertJob(db: Queryable, input: SubmitInput): Promise<SubmitResult> {
  const hash = requestHash(input.routerId, input.request);
  for (let attempt = 1; ; attempt++) {
    const job = newJob(input, hash);
    const created = await db.query<{ seq_id: number | null }>(CREATE_JOB, [
      job.id,
      job.router_id,
      job.team_id,
      job.token,
      job.idempotency_key,
      job.request_id,
      job.request_hash,
      job.description,
      job.script,
      job.make_backup,
      job.express_execute,
      job.needs_acknowledgement,
      job.notify_url,
      job.status,
      job.created_at,
      job.completed_at,
      new Date(input.now.getTime() - input.idempotencyTtlMs),
    ]);
    const seq = created.rows[0]?.seq_id;
    if (typeof seq === "number") return { kind: "created", job: { ...job, seq_id: seq } };
    const found = await db.query<Partial<JobRow> & { router_found: boolean; key_hash: string | null }>(
      FIND_KEYED_JOB,
      [input.routerId, input.teamId, input.idempotencyKey, job.id],
    );
    const {
      router_found: routerFound,
      key_hash: keyHash,
      ...keyed
    } = found.rows[0] as Partial<JobRow> & {
      router_found: boolean;
      key_hash: string | null;
    };
    if (!routerFound) return { kind: "router_not_found" };
    if (keyHash !== null)
      return keyed.id && keyHash === hash ? { kind: "replayed", job: keyed as JobRow } : { kind: "conflict" };
    if (attempt === CREATE_ATTEMPTS) return { kind: "conflict" };
  }
}

/**
 * Every job of the router, newest first, every column (the sites API's list shows scripts). The spec's list
 * and its pages read fewer columns and filter in the database: `jobListJson` and `jobPage` (job-page.ts).
 */
export async function listJobs(db: Queryable, teamId: string, routerId: string): Promise<JobRow[]> {
  const { rows } = await db.query<JobRow>(
    "SELECT * FROM jobs WHERE router_id = $1 AND team_id = $2 ORDER BY seq_id DESC",
    [routerId, teamId],
  );
  return rows;
}

/** One job of the team's router, every column; undefined when there is none or it was deleted (the sites API). */
export async function findSiteJob(
  db: Queryable,
  teamId: string,
  routerId: string,
  jobId: string,
): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    "SELECT * FROM jobs WHERE id = $1 AND router_id = $2 AND team_id = $3 AND status <> 'deleted'",
    [jobId, routerId, teamId],
  );
  return rows[0];
}
