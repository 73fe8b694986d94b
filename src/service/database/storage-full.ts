import type { Database } from "./database.js";

/**
 * A full disk is not an internal fault: nothing is wrong with the request, the service cannot store it now and
 * will again once space is freed. Callers answer 503 with Retry-After (the sender retries; nothing was
 * acknowledged, so nothing is lost) and `/healthz` reports it, so a load balancer or an operator sees why.
 */

/** PostgreSQL's SQLSTATE `disk_full` (PGlite and PostgreSQL), and the system's errno names. */
const FULL_CODES = new Set(["53100", "ENOSPC", "EDQUOT"]);

/** How long `/healthz` reports a full disk after the last write that failed for lack of space. */
export const STORAGE_FULL_REPORT_MS = 30_000;

/** Seconds a client should wait before it retries a request refused for lack of space. */
export const STORAGE_FULL_RETRY_AFTER_S = 30;

/** Whether `error` (or an error it wraps) says the disk or the quota is full. */
export function isStorageFull(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Object && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && FULL_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Remembers the last write refused for lack of space. Space comes back without the service being told (an
 * operator deletes files), so the report ends by itself {@link STORAGE_FULL_REPORT_MS} after the last refusal;
 * a disk still full refuses the next write and the report starts again. (A write that succeeds proves nothing:
 * on a full disk, a row that fits a page already allocated is still written.)
 */
export class StorageFullReport {
  private lastFullAt: number | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Call with every error a write raised; returns whether it was a full disk. */
  note(error: unknown): boolean {
    if (!isStorageFull(error)) return false;
    this.lastFullAt = this.now();
    return true;
  }

  /**
   * The reason to report while a refusal is recent, else undefined. It names no file: `/healthz` answers
   * anyone, and the paths of the data directory are the operator's business (the log has them).
   */
  current(): string | undefined {
    if (this.lastFullAt === undefined) return undefined;
    const age = this.now() - this.lastFullAt;
    if (age > STORAGE_FULL_REPORT_MS) return undefined;
    return `storage is full: writes are refused (the last one ${Math.round(age / 1000)} s ago); free space on the data directory's disk`;
  }
}

/** `db` with every failed statement and transaction shown to `report` first (the error still propagates). */
export function reportStorageFull(db: Database, report: StorageFullReport): Database {
  const noted = (error: unknown): never => {
    report.note(error);
    throw error;
  };
  return {
    kind: db.kind,
    query: <Row extends object>(sql: string, params?: readonly unknown[]) =>
      db.query<Row>(sql, params).catch(noted),
    transaction: (fn) => db.transaction(fn).catch(noted),
    close: () => db.close(),
  };
}
