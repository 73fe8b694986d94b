import { randomBytes, randomUUID } from "node:crypto";

/** One job, shared by both API generations: each renders it in its own shape. Times are epoch ms. */
export interface Job {
  id: string;
  token: string;
  seqId: number;
  siteId: string;
  teamId: string;
  idempotencyKey: string;
  requestId: string;
  /** null for a sites API job submitted without X-Description (optional there). */
  description: string | null;
  script: string;
  expressExecute: boolean;
  needsAcknowledgement: boolean;
  backup: boolean;
  notifyUrl: string | null;
  associatedBackup: string | null;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  failedAt: number | null;
  deletedAt: number | null;
}

export type JobStatus = "pending" | "running" | "completed" | "failed" | "deleted";
export type NewJob = Pick<
  Job,
  | "siteId"
  | "teamId"
  | "idempotencyKey"
  | "description"
  | "script"
  | "expressExecute"
  | "needsAcknowledgement"
> &
  Pick<Job, "backup" | "notifyUrl">;

/** The state follows from the timestamps, as API B documents; a deletion outranks everything. */
export function statusOf(job: Job): JobStatus {
  if (job.deletedAt !== null) return "deleted";
  if (job.failedAt !== null) return "failed";
  if (job.completedAt !== null) return "completed";
  if (job.startedAt !== null) return "running";
  return "pending";
}

/** Laravel's default JSON date: microseconds and a Z. */
export function laravelTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export class JobStore {
  private readonly all: Job[] = [];
  private seq = 0;

  create(fields: NewJob): Job {
    const alphanumeric = randomBytes(6).toString("base64url").replace(/[-_]/g, "x");
    const job: Job = {
      ...fields,
      id: randomUUID(),
      token: alphanumeric.slice(0, 8),
      seqId: ++this.seq,
      requestId: randomUUID(),
      associatedBackup: null,
      createdAt: Date.now(),
      startedAt: null,
      completedAt: null,
      failedAt: null,
      deletedAt: null,
    };
    this.all.push(job);
    return job;
  }

  get(id: string): Job | undefined {
    return this.all.find((job) => job.id === id);
  }

  /** Newest first, as the public service's list is documented. */
  forSite(siteId: string): Job[] {
    return this.all.filter((job) => job.siteId === siteId).reverse();
  }

  byIdempotencyKey(siteId: string, key: string): Job | undefined {
    return this.all.find((job) => job.siteId === siteId && job.idempotencyKey === key);
  }
}

/** The fields every rendering shares, under the names both generations use. */
function common(job: Job) {
  return {
    id: job.id,
    token: job.token,
    idempotency_key: job.idempotencyKey,
    description: job.description,
    express_execute: job.expressExecute,
    needs_acknowledgement: job.needsAcknowledgement,
    started_at: laravelTime(job.startedAt),
    completed_at: laravelTime(job.completedAt),
    failed_at: laravelTime(job.failedAt),
  };
}

/** API A's job list item (spec table "Job list item"). */
export function specListItem(job: Job): Record<string, unknown> {
  return {
    ...common(job),
    make_backup: job.backup,
    deleted_at: laravelTime(job.deletedAt),
    status: statusOf(job),
  };
}

/** API B's job: no status, no seq_id, should_backup instead of make_backup; log_url's target is unknown. */
export function sitesJob(job: Job): Record<string, unknown> {
  const { siteId, backup, associatedBackup, createdAt, script } = job;
  return {
    ...common(job),
    site_id: siteId,
    should_backup: backup,
    associated_backup: associatedBackup,
    created_at: laravelTime(createdAt),
    log_url: null,
    script,
  };
}

/** The spec's notification payload; `status` may also be "loaded", a notified moment with no timestamp. */
export function specNotification(job: Job, status: string): Record<string, unknown> {
  const { id, token: _token, ...rest } = specListItem(job);
  return { job_id: id, customer_id: job.teamId, router_id: job.siteId, seq_id: job.seqId, ...rest, status };
}
