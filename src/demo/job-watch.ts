import { stripMarker } from "../contract/attempt-marker.js";
import type { Queryable } from "../service/database/database.js";

export interface WatchedJob {
  readonly routerName: string;
  readonly seqId: number;
  readonly description: string;
  readonly status: string;
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly endedAt: Date | null;
  /** The backup the job took before its script, by its name on the router. */
  readonly backupName: string | null;
}

/**
 * Live progress per router for the demo: reads the service's job table a few times a second and reports each
 * state change (queued, running, completed, failed) with the time since the job was queued.
 */
export class JobWatch {
  readonly #seen = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #busy = false;

  constructor(
    private readonly db: Queryable,
    private readonly onChange: (job: WatchedJob) => void,
  ) {}

  start(intervalMs = 200): void {
    this.#timer = setInterval(() => void this.poll(), intervalMs);
  }

  /** One look at the table; also the last look before a summary, so no change goes unreported. */
  async poll(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (const job of await this.jobs()) {
        const key = `${job.routerName}#${job.seqId}`;
        if (this.#seen.get(key) === job.status) continue;
        this.#seen.set(key, job.status);
        this.onChange(job);
      }
    } finally {
      this.#busy = false;
    }
  }

  async jobs(): Promise<WatchedJob[]> {
    const { rows } = await this.db.query<{
      name: string;
      seq_id: number;
      description: string;
      status: string;
      created_at: Date;
      started_at: Date | null;
      ended_at: Date | null;
      backup_name: string | null;
    }>(
      `SELECT r.name, j.seq_id, j.description, j.status, j.created_at, j.started_at,
              coalesce(j.completed_at, j.failed_at, j.deleted_at) AS ended_at, j.backup_name
         FROM jobs j JOIN routers r ON r.id = j.router_id
        ORDER BY j.created_at, r.name, j.seq_id`,
    );
    return rows.map((row) => ({
      routerName: row.name,
      seqId: row.seq_id,
      description: stripMarker(row.description),
      status: row.status,
      createdAt: new Date(row.created_at),
      startedAt: row.started_at ? new Date(row.started_at) : null,
      endedAt: row.ended_at ? new Date(row.ended_at) : null,
      backupName: row.backup_name,
    }));
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** `queued`, not the API's `pending`: what a person watching a deploy expects to read. */
export function describeStatus(status: string): string {
  return status === "pending" ? "queued" : status;
}
