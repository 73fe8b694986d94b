import type { Database, Queryable } from "../database/database.js";
import { toJsonb } from "../database/jsonb.js";
import { type JobRow, queueNotifications } from "./rows.js";

/** A claimed job with its router as the claim saw it (under the router's lock). */
export interface ClaimedJob {
  readonly job: JobRow;
  readonly router: {
    readonly id: string;
    readonly name: string;
    readonly online: boolean;
    readonly state_version: number;
  };
}

/**
 * Takes the next job of a router for this instance. The router row is locked with SKIP LOCKED, so two instances
 * never claim for one router at the same time, and a router with a claimed or started job is busy: one job at a
 * time per router, in seq_id order. Entering `loaded` and its notification commit together.
 */
export async function claimNextJob(
  db: Queryable,
  routerId: string,
  instanceId: string,
  now: Date,
): Promise<ClaimedJob | undefined> {
  // A plain read first: a router's queue is found empty (or its head running) at the end of every pass, and
  // the claim locks rows, which writes WAL and so costs a WAL flush. A job queued after this read is not
  // missed, as after a claim that found nothing: its submission kicks the scheduler (express) or the next
  // tick finds it, and the router is worked again.
  const { rows: heads } = await db.query<{ execution: string }>(
    "SELECT execution FROM jobs WHERE router_id = $1 AND execution <> 'done' ORDER BY seq_id LIMIT 1",
    [routerId],
  );
  if (heads[0]?.execution !== "queued") return undefined;
  const { rows } = await db.query<ClaimRow>(CLAIM_HEAD, [routerId, instanceId, now]);
  const claimed = rows[0];
  if (!claimed) return undefined;
  const { status_before, router_name, router_online, router_state_version, ...job } = claimed;
  return {
    job,
    router: { id: routerId, name: router_name, online: router_online, state_version: router_state_version },
  };
}

interface ClaimRow extends JobRow {
  status_before: string;
  router_name: string;
  router_online: boolean;
  router_state_version: number;
}

/*
 * The claim, one statement: the router's row (skipped when another instance holds it, or offline), then the
 * head of its queue, both locked in that order; the head is claimed only when it is queued (a claimed or
 * started head means the router is busy); a job that enters `loaded` queues its notification.
 * `EXISTS (SELECT FROM router)` is a one-time filter, evaluated (and the router locked) before the jobs are
 * read, which then come from the queue's index in `seq_id` order: joined to the router instead, the head was
 * found by sorting every open job of the router, a cost that grows with its queue (figures:
 * docs/performance.md).
 */
const CLAIM_HEAD = `
  WITH router AS (
    SELECT id, name, online, state_version FROM routers
    WHERE id = $1 AND removed_at IS NULL AND online FOR UPDATE SKIP LOCKED
  ), head AS (
    SELECT id, status FROM jobs
    WHERE router_id = $1 AND execution <> 'done' AND EXISTS (SELECT FROM router)
    ORDER BY seq_id LIMIT 1 FOR UPDATE
  ), claimed AS (
    UPDATE jobs SET execution = 'claimed', claimed_by = $2,
      status = CASE WHEN head.status = 'pending' THEN 'loaded' ELSE jobs.status END,
      loaded_at = CASE WHEN head.status = 'pending' THEN coalesce(jobs.loaded_at, $3) ELSE jobs.loaded_at END
    FROM head WHERE jobs.id = head.id AND jobs.execution = 'queued'
    RETURNING jobs.*, head.status AS status_before
  ), notified AS (
    ${queueNotifications("claimed", "$3::timestamptz", "j.status_before = 'pending'")}
  )
  SELECT claimed.*, router.name AS router_name, router.online AS router_online,
    router.state_version AS router_state_version
  FROM claimed, router`;

/**
 * `loaded` -> `running` (the script starts); a job whose status is already terminal (completed at submission)
 * only changes execution. Only the claim's holder starts it: a job deleted since the claim, or handed to another
 * instance by recovery, returns undefined and must not run.
 */
export async function markStarted(
  db: Queryable,
  jobId: string,
  instanceId: string,
  now: Date,
): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow & { status_before: string }>(START_JOB, [jobId, instanceId, now]);
  const started = rows[0];
  if (!started) return undefined;
  const { status_before, ...job } = started;
  return job;
}

/*
 * One statement: the job's row locked, then started if this instance still holds its claim; a job that was
 * `loaded` is now `running` and queues that notification (a device job resumed after a restart was `running`
 * already, and its `running` was announced then).
 */
const START_JOB = `
  WITH before AS (
    SELECT id, status FROM jobs WHERE id = $1 FOR UPDATE
  ), started AS (
    UPDATE jobs SET execution = 'started',
      status = CASE WHEN jobs.status = 'loaded' THEN 'running' ELSE jobs.status END,
      started_at = CASE WHEN jobs.status = 'loaded' THEN $3 ELSE jobs.started_at END
    FROM before WHERE jobs.id = before.id AND jobs.execution = 'claimed' AND jobs.claimed_by = $2
    RETURNING jobs.*, before.status AS status_before
  ), notified AS (
    ${queueNotifications("started", "$3::timestamptz", "j.status_before = 'loaded'")}
  )
  SELECT * FROM started`;

/**
 * Gives claims this instance holds back to the queue, for jobs whose start failed (the store refused the write:
 * a full disk): the job was never handed over, so it is queued again as it was, `loaded` already announced.
 * A job that started meanwhile, or a claim that is not this instance's, is left alone. Returns the ids given back.
 */
export async function releaseClaims(
  db: Queryable,
  jobIds: readonly string[],
  instanceId: string,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE jobs SET execution = 'queued', claimed_by = NULL
     WHERE id = ANY($1::uuid[]) AND execution = 'claimed' AND claimed_by = $2 RETURNING id`,
    [jobIds, instanceId],
  );
  return rows.map((row) => row.id);
}

export interface Finish {
  readonly ok: boolean;
  readonly error?: string;
  /**
   * The router's configuration after the job, persisted so that a restart keeps it; undefined when the back end
   * no longer has the router (removed while the job ran), which leaves the saved state as it was.
   */
  readonly snapshot: unknown;
}

/**
 * `running` -> `completed` | `failed`, with the router's new state, in one transaction, written only by the
 * instance that holds the job's claim (`instanceId`): an instance that froze past the claim timeout finds its job
 * recovered by another (failed: interrupted) and writes nothing, neither outcome nor state (fencing).
 *
 * Locks are taken in the order `claimNextJob` takes them, the router's row, then the job's: two instances that
 * finish and claim on one router at the same moment wait for each other instead of deadlocking.
 *
 * Resolves to the state version saved, or `{ fenced: true }` when the claim is no longer this instance's.
 */
export async function finishJob(
  db: Queryable,
  job: JobRow,
  outcome: Finish,
  now: Date,
  instanceId: string,
): Promise<number | undefined | { fenced: true }> {
  const { rows } = await db.query<{ found: number; finished: number; state_version: number | null }>(
    FINISH_JOB,
    [
      job.id,
      job.router_id,
      instanceId,
      outcome.ok ? "completed" : "failed",
      outcome.ok ? now : null,
      outcome.ok ? null : now,
      outcome.ok ? null : (outcome.error ?? "the script failed"),
      now,
      outcome.snapshot === undefined ? null : toJsonb(outcome.snapshot),
    ],
  );
  const result = rows[0];
  if (!result?.found) return undefined;
  if (!result.finished) return { fenced: true };
  return result.state_version ?? undefined;
}

/*
 * One statement: the router's row, then the job's, locked; written only when this instance holds the claim.
 * A running job ends `completed` or `failed` and queues that notification; one terminal already (deleted while
 * running, or completed at submission) only leaves the queue. The router's state is saved with it when given.
 */
const FINISH_JOB = `
  WITH router AS (
    SELECT id FROM routers WHERE id = $2 FOR UPDATE
  ), current AS (
    SELECT id, status FROM jobs WHERE id = $1 AND EXISTS (SELECT FROM router) FOR UPDATE
  ), finished AS (
    UPDATE jobs SET execution = 'done', claimed_by = NULL,
      status = CASE WHEN current.status = 'running' THEN $4 ELSE jobs.status END,
      completed_at = CASE WHEN current.status = 'running' THEN $5 ELSE jobs.completed_at END,
      failed_at = CASE WHEN current.status = 'running' THEN $6 ELSE jobs.failed_at END,
      error = CASE WHEN current.status = 'running' THEN $7 ELSE jobs.error END
    FROM current WHERE jobs.id = current.id AND jobs.claimed_by = $3 AND jobs.execution = 'started'
    RETURNING jobs.*, current.status AS status_before
  ), notified AS (
    ${queueNotifications("finished", "$8::timestamptz", "j.status_before = 'running'")}
  ), saved AS (
    UPDATE routers SET state = $9::jsonb, state_version = state_version + 1
    FROM finished WHERE routers.id = finished.router_id AND $9::jsonb IS NOT NULL
    RETURNING routers.state_version
  )
  SELECT (SELECT count(*) FROM current)::int AS found, (SELECT count(*) FROM finished)::int AS finished,
    (SELECT state_version FROM saved) AS state_version`;

/** The name of the backup a job took before its script, shown to the operator with the job. */
export async function recordBackup(db: Queryable, jobId: string, name: string): Promise<void> {
  await db.query("UPDATE jobs SET backup_name = $2 WHERE id = $1", [jobId, name]);
}

export async function saveRouterState(tx: Queryable, routerId: string, snapshot: unknown): Promise<number> {
  const { rows } = await tx.query<{ state_version: number }>(
    "UPDATE routers SET state = $2::jsonb, state_version = state_version + 1 WHERE id = $1 RETURNING state_version",
    [routerId, toJsonb(snapshot)],
  );
  return rows[0]?.state_version ?? 0;
}

/** Moves a job that is not terminal to `deleted`. A job whose script is running finishes on the router. */
export async function deleteJobTx(tx: Queryable, jobId: string, now: Date): Promise<JobRow | undefined> {
  const { rows } = await tx.query<JobRow>(DELETE_JOB, [jobId, now]);
  return rows[0];
}

const DELETE_JOB = `
  WITH deleted AS (
    UPDATE jobs SET status = 'deleted', deleted_at = $2,
      execution = CASE WHEN execution = 'started' THEN execution ELSE 'done' END,
      claimed_by = CASE WHEN execution = 'started' THEN claimed_by ELSE NULL END
    WHERE id = $1 AND status IN ('pending', 'loaded', 'running') RETURNING *
  ), notified AS (
    ${queueNotifications("deleted", "$2::timestamptz")}
  )
  SELECT * FROM deleted`;

/** What a cancellation found: the job cancelled, one it may no longer cancel (with its status), or no such job. */
export type CancelResult =
  | { readonly kind: "cancelled"; readonly job: JobRow }
  | { readonly kind: "already_started"; readonly job: JobRow }
  | { readonly kind: "not_found" };

/**
 * Cancels a job of the team's router that has not started: one whose script was never handed to the router
 * (`queued`, or `claimed` by a scheduler that has not started it yet). It becomes `deleted`, leaves the queue
 * and queues its notification; a deleted job is not found (the sites API shows none).
 *
 * One statement, so a cancel racing the scheduler ends in exactly one state: the job's row is locked first
 * (as `markStarted` locks it), and the update's condition is re-read on the row as it stands once the lock is
 * held. If the start came first, the job is `running` and stays so, answered as already started with that
 * status (the locked row as it stands, not as the statement's snapshot had it); if the cancel came first,
 * `markStarted` finds no claim to start (`execution` is `done`) and the script never runs.
 */
export async function cancelJob(
  db: Queryable,
  ids: { readonly teamId: string; readonly routerId: string; readonly jobId: string },
  now: Date,
): Promise<CancelResult> {
  const { rows } = await db.query<JobRow & { cancelled: boolean }>(CANCEL_JOB, [
    ids.jobId,
    ids.routerId,
    ids.teamId,
    now,
  ]);
  const found = rows[0];
  if (!found) return { kind: "not_found" };
  const { cancelled, ...job } = found;
  return cancelled ? { kind: "cancelled", job } : { kind: "already_started", job };
}

const CANCEL_JOB = `
  WITH target AS (
    SELECT * FROM jobs
    WHERE id = $1 AND router_id = $2 AND team_id = $3 AND status <> 'deleted' FOR UPDATE
  ), cancelled AS (
    UPDATE jobs SET status = 'deleted', deleted_at = $4, execution = 'done', claimed_by = NULL
    FROM target
    WHERE jobs.id = target.id AND jobs.status IN ('pending', 'loaded') AND jobs.execution IN ('queued', 'claimed')
    RETURNING jobs.*
  ), notified AS (
    ${queueNotifications("cancelled", "$4::timestamptz")}
  )
  SELECT cancelled.*, TRUE AS cancelled FROM cancelled
  UNION ALL
  SELECT target.*, FALSE AS cancelled FROM target WHERE NOT EXISTS (SELECT FROM cancelled)`;

export const INTERRUPTED_ERROR = "interrupted by service restart";

/**
 * Jobs held by instances that died. A job whose script never started goes back to the queue (it keeps its
 * status `loaded`, which was already announced). A job whose script started on a device router goes back to the
 * queue `running`: its script runs on the router, not in the dead instance, and the device back end finds it
 * there by its name and reports its real outcome (`resumed`), never starting it twice. Any other job whose
 * script started may have changed the router, so it is never run again: it fails with INTERRUPTED_ERROR.
 */
export async function recoverJobs(
  db: Database,
  deadInstances: readonly string[],
  now: Date,
): Promise<number> {
  if (deadInstances.length === 0) return 0;
  return db.transaction(async (tx) => {
    const requeued = await tx.query(
      `UPDATE jobs SET execution = 'queued', claimed_by = NULL
       WHERE execution = 'claimed' AND claimed_by = ANY($1::uuid[]) RETURNING id`,
      [deadInstances],
    );
    const resumed = await tx.query(
      `UPDATE jobs SET execution = 'queued', claimed_by = NULL
       WHERE execution = 'started' AND claimed_by = ANY($1::uuid[]) AND status = 'running'
         AND router_id IN (SELECT id FROM routers WHERE device_host IS NOT NULL) RETURNING id`,
      [deadInstances],
    );
    // Those that were loaded or running fail, and queue that notification; terminal ones only leave the queue.
    const interrupted = await tx.query(
      `WITH interrupted AS (
         UPDATE jobs SET execution = 'done', claimed_by = NULL,
           status = CASE WHEN status IN ('loaded', 'running') THEN 'failed' ELSE status END,
           failed_at = CASE WHEN status IN ('loaded', 'running') THEN $2 ELSE failed_at END,
           error = CASE WHEN status IN ('loaded', 'running') THEN $3 ELSE error END
         WHERE execution = 'started' AND claimed_by = ANY($1::uuid[]) RETURNING *
       ), notified AS (
         ${queueNotifications("interrupted", "$2::timestamptz", "j.status = 'failed' AND j.error = $3")}
       )
       SELECT id FROM interrupted`,
      [deadInstances, now, INTERRUPTED_ERROR],
    );
    return requeued.rows.length + resumed.rows.length + interrupted.rows.length;
  });
}
