import { type JobStatus, type Notification, STATUS_RANK } from "../../contract/job.js";
import { formatTimestamp } from "../../contract/time.js";
import type { Database, Queryable } from "../database/database.js";
import { GroupCommit } from "../database/group-commit.js";
import { migrate } from "../database/migrations.js";
import { PLAN_EACH_RUN } from "../database/plan-each-run.js";
import type { ReceivedJob } from "./job-view.js";
import { RECEIVER_MIGRATIONS } from "./migrations.js";

/**
 * PostgreSQL channel on which every instance announces a stored notification. One NOTIFY per name the job can
 * be waited for by: its job id, and its idempotency key when known (both UUIDs, so they share one namespace).
 */
export const WAKEUP_CHANNEL = "routerjobs_receiver";

export interface RecordResult {
  /** True when (job_id, status) had been stored before: acknowledged, nothing changed. */
  readonly duplicate: boolean;
  readonly job: ReceivedJob;
}

interface Received {
  readonly notification: Notification;
  readonly rawStatus: string;
  readonly webhookId: string | undefined;
}

interface JobRow {
  job_id: string;
  idempotency_key: string | null;
  router_id: string | null;
  customer_id: string | null;
  seq_id: number | null;
  description: string | null;
  status: string;
  started_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
  deleted_at: string | null;
  error: string | null;
  first_heard_at: Date | string;
  updated_at: Date | string;
  /** Statuses of the notifications stored for the job, in the order they arrived. */
  heard: string[];
}

/** A job's row with the statuses heard for it. */
const JOB_VIEW = `SELECT j.*, array(SELECT n.status FROM receiver_notifications n WHERE n.job_id = j.job_id ORDER BY n.id) AS heard
  FROM receiver_jobs j`;

/*
 * The state only moves up STATUS_RANK; terminal states share the top rank, so the first terminal one wins and
 * a later terminal or an out-of-order earlier state leaves it alone. Times and the other fields fill in from
 * whichever notification carries them (a minimal one carries only job_id and status), so a late `running` still
 * contributes its started_at.
 */
const UPSERT_JOB = `
  INSERT INTO receiver_jobs AS j (job_id, idempotency_key, router_id, customer_id, seq_id, description, status,
    status_rank, started_at, completed_at, failed_at, deleted_at, error, first_heard_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, now(), now())
  ON CONFLICT (job_id) DO UPDATE SET
    status = CASE WHEN EXCLUDED.status_rank > j.status_rank THEN EXCLUDED.status ELSE j.status END,
    error = CASE WHEN EXCLUDED.status_rank > j.status_rank THEN EXCLUDED.error ELSE j.error END,
    status_rank = GREATEST(EXCLUDED.status_rank, j.status_rank),
    idempotency_key = COALESCE(j.idempotency_key, EXCLUDED.idempotency_key),
    router_id = COALESCE(j.router_id, EXCLUDED.router_id),
    customer_id = COALESCE(j.customer_id, EXCLUDED.customer_id),
    seq_id = COALESCE(j.seq_id, EXCLUDED.seq_id),
    description = COALESCE(j.description, EXCLUDED.description),
    started_at = COALESCE(j.started_at, EXCLUDED.started_at),
    completed_at = COALESCE(j.completed_at, EXCLUDED.completed_at),
    failed_at = COALESCE(j.failed_at, EXCLUDED.failed_at),
    deleted_at = COALESCE(j.deleted_at, EXCLUDED.deleted_at),
    updated_at = now()
`;

/** Durable storage of notifications and of each job's current state, on PGlite or PostgreSQL alike. */
export class NotificationStore {
  private readonly writer = new GroupCommit<Received, RecordResult>((batch) =>
    this.db.transaction(async (tx) => {
      const results: RecordResult[] = [];
      // One after the other: a batch may hold two notifications of one job, and the second must see the first.
      for (const received of batch) results.push(await this.recordIn(tx, received));
      return results;
    }),
  );

  private constructor(private readonly db: Database) {}

  static async open(db: Database): Promise<NotificationStore> {
    await migrate(db, "receiver", RECEIVER_MIGRATIONS);
    return new NotificationStore(db);
  }

  /**
   * Stores one notification; resolves only after the transaction holding it committed. `rawStatus` is the
   * status string as sent, so that a status this build does not know is still deduplicated on its own value.
   */
  record(notification: Notification, rawStatus: string, webhookId?: string): Promise<RecordResult> {
    return this.writer.submit({ notification, rawStatus, webhookId });
  }

  private async recordIn(
    tx: Queryable,
    { notification, rawStatus, webhookId }: Received,
  ): Promise<RecordResult> {
    const inserted = await tx.query(
      `INSERT INTO receiver_notifications (job_id, status, idempotency_key, router_id, webhook_id, payload)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (job_id, status) DO NOTHING RETURNING id`,
      [
        notification.job_id,
        rawStatus,
        notification.idempotency_key ?? null,
        notification.router_id ?? null,
        webhookId ?? null,
        JSON.stringify(notification),
      ],
    );
    if (inserted.rows.length === 0) {
      const job = await findOne(tx, "j.job_id = $1", [notification.job_id]);
      if (!job) throw new Error(`receiver_jobs lacks job ${notification.job_id} that has notifications`);
      return { duplicate: true, job };
    }
    await tx.query(UPSERT_JOB, [
      notification.job_id,
      notification.idempotency_key ?? null,
      notification.router_id ?? null,
      notification.customer_id ?? null,
      notification.seq_id ?? null,
      notification.description ?? null,
      notification.status,
      STATUS_RANK[notification.status],
      notification.started_at,
      notification.completed_at,
      notification.failed_at,
      notification.deleted_at,
      notification.error ?? null,
    ]);
    const job = await findOne(tx, "j.job_id = $1", [notification.job_id]);
    if (!job) throw new Error(`receiver_jobs lacks job ${notification.job_id} just stored`);
    if (this.db.kind === "postgres") {
      // Delivered at commit to every instance that LISTENs, so their waiters wake as ours do.
      for (const name of wakeNames(job)) await tx.query("SELECT pg_notify($1, $2)", [WAKEUP_CHANNEL, name]);
    }
    return { duplicate: false, job };
  }

  /** The most recently heard job with this idempotency key (the service gives one job per key). */
  findByIdempotencyKey(idempotencyKey: string): Promise<ReceivedJob | undefined> {
    return findOne(this.db, "j.idempotency_key = $1", [idempotencyKey]);
  }

  /** The job by its id: the one name every notification carries. */
  findByJobId(jobId: string): Promise<ReceivedJob | undefined> {
    return findOne(this.db, "j.job_id = $1", [jobId]);
  }

  async recent(options: { routerId?: string; limit: number }): Promise<ReceivedJob[]> {
    const { rows } = await this.db.query<JobRow>(
      // One router's or everyone's: planned for the values at hand (a kept plan would serve both the same way).
      `${PLAN_EACH_RUN} ${JOB_VIEW} WHERE ($1::text IS NULL OR j.router_id = $1)
       ORDER BY j.updated_at DESC, j.job_id LIMIT $2`,
      [options.routerId ?? null, options.limit],
    );
    return rows.map(toView);
  }
}

async function findOne(db: Queryable, where: string, params: unknown[]): Promise<ReceivedJob | undefined> {
  const { rows } = await db.query<JobRow>(
    `${JOB_VIEW} WHERE ${where} ORDER BY j.updated_at DESC LIMIT 1`,
    params,
  );
  return rows[0] && toView(rows[0]);
}

/** The names a waiter may watch this job by (see WAKEUP_CHANNEL). */
export function wakeNames(job: ReceivedJob): string[] {
  return job.idempotency_key === undefined ? [job.job_id] : [job.job_id, job.idempotency_key];
}

function toView(row: JobRow): ReceivedJob {
  return {
    job_id: row.job_id,
    // Fields no notification carried yet are left out, as the wait API's schema has them optional.
    ...(row.idempotency_key === null ? {} : { idempotency_key: row.idempotency_key }),
    ...(row.router_id === null ? {} : { router_id: row.router_id }),
    ...(row.customer_id === null ? {} : { customer_id: row.customer_id }),
    ...(row.seq_id === null ? {} : { seq_id: row.seq_id }),
    ...(row.description === null ? {} : { description: row.description }),
    status: row.status as JobStatus,
    started_at: row.started_at,
    completed_at: row.completed_at,
    failed_at: row.failed_at,
    deleted_at: row.deleted_at,
    error: row.error,
    first_heard_at: formatTimestamp(new Date(row.first_heard_at)),
    last_heard_at: formatTimestamp(new Date(row.updated_at)),
    heard: row.heard,
  };
}
