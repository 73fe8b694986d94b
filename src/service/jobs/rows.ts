import type { JobRecord, KnownJobStatus } from "../../contract/job.js";
import { formatTimestamp } from "../../contract/time.js";
import type { Queryable } from "../database/database.js";

/**
 * Where the job is in its execution, apart from its public status: a job with `needs_acknowledgement: false`
 * is `completed` at submission yet still queued for the router.
 */
export type Execution = "queued" | "claimed" | "started" | "done";

export interface JobRow {
  id: string;
  router_id: string;
  team_id: string;
  seq_id: number;
  token: string;
  idempotency_key: string;
  request_id: string;
  request_hash: string;
  description: string;
  script: string;
  make_backup: boolean;
  express_execute: boolean;
  needs_acknowledgement: boolean;
  notify_url: string | null;
  status: KnownJobStatus;
  execution: Execution;
  claimed_by: string | null;
  created_at: Date;
  loaded_at: Date | null;
  started_at: Date | null;
  completed_at: Date | null;
  failed_at: Date | null;
  deleted_at: Date | null;
  error: string | null;
  backup_name: string | null;
}

/**
 * The columns a job list reads: what a list item (`toJobRecord`) and the portal's log show, and the row's keys.
 * Left out, none of them shown by these lists:
 * - `script`: up to `SCRIPT_CHARS` (2,000 characters a job from the spec's route, 10,000 from the sites API's),
 *   the bulk of a row. A page of 100 jobs then
 *   carries what it shows, not 100 scripts for PGlite to parse and pass between threads. The sites API's list shows
 *   scripts and reads every column (`listJobs`).
 * - `request_id`, `request_hash`: the submission's record (the id its acknowledgement gives back; the hash,
 *   which an idempotent replay compares as `idempotency_keys` holds it).
 * - `notify_url`: the notification outbox's, read with the whole row when a state change is queued.
 * - `execution`, `claimed_by`, `loaded_at`: the scheduler's progress and claim, and a time no list shows;
 *   a list shows the public `status`.
 */
export const JOB_LIST_COLUMNS = [
  "id",
  "router_id",
  "team_id",
  "seq_id",
  "token",
  "idempotency_key",
  "description",
  "make_backup",
  "express_execute",
  "needs_acknowledgement",
  "status",
  "created_at",
  "started_at",
  "completed_at",
  "failed_at",
  "deleted_at",
  "error",
  "backup_name",
] as const satisfies readonly (keyof JobRow)[];

/** A job as a list reads it (`JOB_LIST_COLUMNS`). */
export type JobListRow = Pick<JobRow, (typeof JOB_LIST_COLUMNS)[number]>;

/** `JOB_LIST_COLUMNS` for a SELECT. */
export const JOB_LIST_SELECT = JOB_LIST_COLUMNS.join(", ");

const time = (value: Date | null): string | null => (value ? formatTimestamp(value) : null);

/** What a job list item and a notification both say about a job. */
function jobFacts(row: JobListRow) {
  return {
    idempotency_key: row.idempotency_key,
    description: row.description,
    express_execute: row.express_execute,
    needs_acknowledgement: row.needs_acknowledgement,
    make_backup: row.make_backup,
    seq_id: row.seq_id,
    started_at: time(row.started_at),
    completed_at: time(row.completed_at),
    failed_at: time(row.failed_at),
    deleted_at: time(row.deleted_at),
    status: row.status,
    // The project's extensions to the spec's item, last.
    error: row.error,
    created_at: formatTimestamp(row.created_at),
  };
}

export function toJobRecord(row: JobListRow): JobRecord {
  return { id: row.id, token: row.token, ...jobFacts(row) };
}

/** `formatTimestamp` in SQL: UTC, milliseconds (the clock the service writes with has no finer), `+00:00`. */
export const sqlTimestamp = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"')`;

const sqlTime = (column: string) => `${sqlTimestamp(column)} AS ${column}`;

/**
 * `toJobRecord` as the columns of a SELECT, same keys in the same order, for `row_to_json`: the database
 * writes a whole list's JSON (`jobListJson`), on its own thread, so a 10,000-job answer is not 10,000 objects
 * built, checked and stringified on the service's event loop. test/service/jobs/job-list-json.test.ts holds the
 * two to the same JSON.
 */
export const JOB_RECORD_SELECT = [
  "id",
  "token",
  "idempotency_key",
  "description",
  "express_execute",
  "needs_acknowledgement",
  "make_backup",
  "seq_id",
  sqlTime("started_at"),
  sqlTime("completed_at"),
  sqlTime("failed_at"),
  sqlTime("deleted_at"),
  "status",
  "error",
  sqlTime("created_at"),
].join(", ");

/**
 * A notification's payload, written by the database from job row `j` and its team `t`: the spec's fields, the
 * `error` and `created_at` extensions and the team's `customer_id`. The same facts as `toJobRecord`
 * (`jobFacts`) with the job's and router's ids; test/service/jobs/lifecycle.test.ts holds the two to the same
 * JSON.
 */
const NOTIFICATION_PAYLOAD = `jsonb_build_object(
  'job_id', j.id, 'router_id', j.router_id, 'idempotency_key', j.idempotency_key, 'description', j.description,
  'express_execute', j.express_execute, 'needs_acknowledgement', j.needs_acknowledgement,
  'make_backup', j.make_backup, 'seq_id', j.seq_id,
  'started_at', ${sqlTimestamp("j.started_at")}, 'completed_at', ${sqlTimestamp("j.completed_at")},
  'failed_at', ${sqlTimestamp("j.failed_at")}, 'deleted_at', ${sqlTimestamp("j.deleted_at")},
  'status', j.status, 'error', j.error, 'created_at', ${sqlTimestamp("j.created_at")},
  'customer_id', t.customer_id)`;

/**
 * SQL that queues the notification of each job of `changed` whose `where` holds (in terms of `j`), with the
 * job as `changed` has it. `changed` is a relation with the jobs' columns: `jobs` itself, or the `RETURNING`
 * of a data-modifying CTE in the statement that changes the jobs, so that a state change and its notification
 * commit together, in one statement: each statement on the embedded store is a round trip to the database's
 * thread. `now` is the SQL of the time queued (a parameter).
 */
export function queueNotifications(changed: string, now: string, where = "TRUE"): string {
  return `INSERT INTO outbox (id, job_id, seq, team_id, url, payload, created_at, next_attempt_at)
    SELECT gen_random_uuid(), j.id, (SELECT coalesce(max(o.seq), 0) + 1 FROM outbox o WHERE o.job_id = j.id),
      j.team_id, j.notify_url, ${NOTIFICATION_PAYLOAD}, ${now}, ${now}
    FROM ${changed} j JOIN teams t ON t.id = j.team_id
    WHERE j.notify_url IS NOT NULL AND (${where})`;
}

const QUEUE_JOB_NOTIFICATION = queueNotifications("jobs", "$2::timestamptz", "j.id = $1");

/**
 * Queues the notification of job `jobId`'s current state, in the caller's transaction, so that a state change
 * made earlier in it and its notification are committed together or not at all.
 */
export async function enqueueNotification(tx: Queryable, jobId: string, now: Date): Promise<void> {
  await tx.query(QUEUE_JOB_NOTIFICATION, [jobId, now]);
}
