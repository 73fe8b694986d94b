import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { JobRequest } from "../../contract/job.js";
import type { Database, Queryable } from "../../store/database.js";
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

/** Hash of what makes two submissions "the same": the router and the request after defaults. */
export function requestHash(routerId: string, request: JobRequest): string {
  const canonical = JSON.stringify([
    routerId,
    request.description,
    request.script,
    request.make_backup,
    request.express_execute,
    request.needs_acknowledgement,
    request.notify_url ?? null,
  ]);
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * Creates a job, or answers with the job an earlier submission of the same idempotency key created. The key
 * row is inserted first: a concurrent duplicate waits on the primary key and then finds the winner's row.
 */
export async function submitJob(db: Database, input: SubmitInput): Promise<SubmitResult> {
  const result = await insertJob(db, input);
  if (result.kind === "created") noteJobsAdded(db);
  return result;
}

async function insertJob(db: Database, input: SubmitInput): Promise<SubmitResult> {
  const hash = requestHash(input.routerId, input.request);
  return db.transaction(async (tx) => {
    const router = await tx.query<{ seq: number }>(
      `UPDATE routers SET next_seq = next_seq + 1
       WHERE id = $1 AND team_id = $2 AND removed_at IS NULL RETURNING next_seq - 1 AS seq`,
      [input.routerId, input.teamId],
    );
    const seq = router.rows[0]?.seq;
    if (seq === undefined) return { kind: "router_not_found" };
    const jobId = randomUUID();
    const key = await tx.query<{ job_id: string }>(
      `INSERT INTO idempotency_keys (team_id, idempotency_key, job_id, request_hash, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (team_id, idempotency_key) DO UPDATE
         SET job_id = EXCLUDED.job_id, request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at
         WHERE idempotency_keys.created_at < $6
       RETURNING job_id`,
      [
        input.teamId,
        input.idempotencyKey,
        jobId,
        hash,
        input.now,
        new Date(input.now.getTime() - input.idempotencyTtlMs),
      ],
    );
    if (key.rows.length === 0) return replay(tx, input, hash);
    const { request } = input;
    const immediate = !request.needs_acknowledgement;
    const { rows } = await tx.query<JobRow>(
      `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
         description, script, make_backup, express_execute, needs_acknowledgement, notify_url, status, execution,
         created_at, completed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'queued', $16, $17)
       RETURNING *`,
      [
        jobId,
        input.routerId,
        input.teamId,
        seq,
        randomBytes(24).toString("base64url"),
        input.idempotencyKey,
        input.requestId,
        hash,
        request.description,
        request.script,
        request.make_backup,
        request.express_execute,
        request.needs_acknowledgement,
        request.notify_url ?? null,
        immediate ? "completed" : "pending",
        input.now,
        immediate ? input.now : null,
      ],
    );
    const job = rows[0] as JobRow;
    if (immediate) await enqueueNotification(tx, job, input.now);
    return { kind: "created", job };
  });
}

async function replay(tx: Queryable, input: SubmitInput, hash: string): Promise<SubmitResult> {
  const { rows } = await tx.query<JobRow & { key_hash: string }>(
    `SELECT j.*, k.request_hash AS key_hash FROM idempotency_keys k JOIN jobs j ON j.id = k.job_id
     WHERE k.team_id = $1 AND k.idempotency_key = $2`,
    [input.teamId, input.idempotencyKey],
  );
  const job = rows[0];
  // Give back the sequence number taken above (the router row is still locked by this transaction), so that
  // seq_id stays dense for people reading the job list.
  await tx.query("UPDATE routers SET next_seq = next_seq - 1 WHERE id = $1", [input.routerId]);
  if (!job || job.key_hash !== hash) return { kind: "conflict" };
  return { kind: "replayed", job };
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
