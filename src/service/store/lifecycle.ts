import type { Database, Queryable } from "../../store/database.js";
import { toJsonb } from "../../store/jsonb.js";
import { enqueueNotification, type JobRow } from "./rows.js";

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
  db: Database,
  routerId: string,
  instanceId: string,
  now: Date,
): Promise<ClaimedJob | undefined> {
  // A plain read first: a router's queue is found empty (or its head running) at the end of every pass, and
  // the claim's transaction locks rows, which costs a WAL flush, and holds PGlite from its first statement to
  // its commit. A job queued after this read is not missed, as after a claim that found nothing: its
  // submission kicks the scheduler (express) or the next tick finds it, and the router is worked again.
  const { rows: heads } = await db.query<{ execution: string }>(
    "SELECT execution FROM jobs WHERE router_id = $1 AND execution <> 'done' ORDER BY seq_id LIMIT 1",
    [routerId],
  );
  if (heads[0]?.execution !== "queued") return undefined;
  return db.transaction(async (tx) => {
    const routers = await tx.query<{ name: string; online: boolean; state_version: number }>(
      `SELECT name, online, state_version FROM routers
       WHERE id = $1 AND removed_at IS NULL FOR UPDATE SKIP LOCKED`,
      [routerId],
    );
    const router = routers.rows[0];
    if (!router?.online) return undefined;
    const queue = await tx.query<JobRow>(
      `SELECT * FROM jobs WHERE router_id = $1 AND execution <> 'done' ORDER BY seq_id LIMIT 1 FOR UPDATE`,
      [routerId],
    );
    const head = queue.rows[0];
    if (head?.execution !== "queued") return undefined;
    const loading = head.status === "pending";
    const { rows } = await tx.query<JobRow>(
      `UPDATE jobs SET execution = 'claimed', claimed_by = $2, status = $3, loaded_at = coalesce(loaded_at, $4)
       WHERE id = $1 RETURNING *`,
      [head.id, instanceId, loading ? "loaded" : head.status, loading ? now : null],
    );
    const job = rows[0] as JobRow;
    if (loading) await enqueueNotification(tx, job, now);
    return {
      job,
      router: { id: routerId, name: router.name, online: router.online, state_version: router.state_version },
    };
  });
}

async function lockJob(tx: Queryable, jobId: string): Promise<JobRow | undefined> {
  const { rows } = await tx.query<JobRow>("SELECT * FROM jobs WHERE id = $1 FOR UPDATE", [jobId]);
  return rows[0];
}

/**
 * `loaded` -> `running` (the script starts); a job whose status is already terminal (completed at submission)
 * only changes execution. Only the claim's holder starts it: a job deleted since the claim, or handed to another
 * instance by recovery, returns undefined and must not run.
 */
export async function markStarted(
  db: Database,
  jobId: string,
  instanceId: string,
  now: Date,
): Promise<JobRow | undefined> {
  return db.transaction(async (tx) => {
    const before = await lockJob(tx, jobId);
    const { rows } = await tx.query<JobRow>(
      `UPDATE jobs SET execution = 'started',
         status = CASE WHEN status = 'loaded' THEN 'running' ELSE status END,
         started_at = CASE WHEN status = 'loaded' THEN $3 ELSE started_at END
       WHERE id = $1 AND execution = 'claimed' AND claimed_by = $2 RETURNING *`,
      [jobId, instanceId, now],
    );
    const job = rows[0];
    // A device job resumed after a restart was `running` already: its `running` was announced then.
    if (job?.status === "running" && before?.status === "loaded") await enqueueNotification(tx, job, now);
    return job;
  });
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
  db: Database,
  job: JobRow,
  outcome: Finish,
  now: Date,
  instanceId: string,
): Promise<number | undefined | { fenced: true }> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT id FROM routers WHERE id = $1 FOR UPDATE", [job.router_id]);
    const current = await lockJob(tx, job.id);
    if (!current) return undefined;
    if (current.claimed_by !== instanceId || current.execution !== "started")
      return { fenced: true as const };
    if (current.status === "running") {
      const { rows } = await tx.query<JobRow>(
        `UPDATE jobs SET execution = 'done', claimed_by = NULL, status = $2, completed_at = $3, failed_at = $4,
           error = $5
         WHERE id = $1 RETURNING *`,
        [
          job.id,
          outcome.ok ? "completed" : "failed",
          outcome.ok ? now : null,
          outcome.ok ? null : now,
          outcome.ok ? null : (outcome.error ?? "the script failed"),
        ],
      );
      await enqueueNotification(tx, rows[0] as JobRow, now);
    } else {
      // Terminal already (deleted while running, or completed at submission): never changes again.
      await tx.query("UPDATE jobs SET execution = 'done', claimed_by = NULL WHERE id = $1", [job.id]);
    }
    return outcome.snapshot === undefined ? undefined : saveRouterState(tx, job.router_id, outcome.snapshot);
  });
}

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
  const { rows } = await tx.query<JobRow>(
    `UPDATE jobs SET status = 'deleted', deleted_at = $2,
       execution = CASE WHEN execution = 'started' THEN execution ELSE 'done' END,
       claimed_by = CASE WHEN execution = 'started' THEN claimed_by ELSE NULL END
     WHERE id = $1 AND status IN ('pending', 'loaded', 'running') RETURNING *`,
    [jobId, now],
  );
  const job = rows[0];
  if (job) await enqueueNotification(tx, job, now);
  return job;
}

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
    const interrupted = await tx.query<JobRow>(
      `UPDATE jobs SET execution = 'done', claimed_by = NULL,
         status = CASE WHEN status IN ('loaded', 'running') THEN 'failed' ELSE status END,
         failed_at = CASE WHEN status IN ('loaded', 'running') THEN $2 ELSE failed_at END,
         error = CASE WHEN status IN ('loaded', 'running') THEN $3 ELSE error END
       WHERE execution = 'started' AND claimed_by = ANY($1::uuid[]) RETURNING *`,
      [deadInstances, now, INTERRUPTED_ERROR],
    );
    for (const job of interrupted.rows) {
      if (job.status === "failed" && job.error === INTERRUPTED_ERROR) await enqueueNotification(tx, job, now);
    }
    return requeued.rows.length + resumed.rows.length + interrupted.rows.length;
  });
}
