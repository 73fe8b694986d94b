import { JOB_STATUSES, type KnownJobStatus } from "../../contract/job.js";
import { DESCRIPTION_MAX_CHARS } from "../../contract/limits.js";
import type { Queryable } from "../../store/database.js";
import { JOB_LIST_SELECT, type JobListRow } from "./rows.js";

/**
 * One page of a router's jobs, newest first. Keyset paging on `seq_id` (the unique (router_id, seq_id) index
 * read backwards): the first page of a router with 10,000 jobs reads the same few rows as one with ten, and a
 * job submitted while someone pages does not shift the pages behind it.
 */
export interface JobPageQuery {
  /** The caller's team; null for the admin's all-teams view. */
  readonly teamId: string | null;
  readonly routerId: string;
  /** Rows per page, 1 to `JOB_PAGE_MAX`. */
  readonly limit: number;
  /** From `nextCursor` of the previous page; undefined for the first page. */
  readonly cursor?: string;
  /** Only jobs in one of these states. */
  readonly statuses?: readonly KnownJobStatus[];
  /** Only jobs whose description contains this text (case-insensitive, taken literally). */
  readonly text?: string;
}

export interface JobPage {
  readonly jobs: JobListRow[];
  /** Opaque; undefined when this page is the last. */
  readonly nextCursor: string | undefined;
}

export const JOB_PAGE_MAX = 500;
/** Longest description filter: a description is at most this long, so a longer text matches nothing. */
export const JOB_TEXT_FILTER_MAX = DESCRIPTION_MAX_CHARS;

/** A cursor that does not decode: the caller answers it as bad input naming the `cursor` field. */
export class InvalidCursorError extends Error {
  override readonly name = "InvalidCursorError";
}

// The cursor names the last seq_id shown. It is opaque to clients (base64url) so that its form may change.
const CURSOR_PREFIX = "rj1.";

export function encodeCursor(lastSeqId: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${lastSeqId}`).toString("base64url");
}

export function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,40}$/.test(cursor) ? Buffer.from(cursor, "base64url").toString() : "";
  const match = /^rj1\.([1-9]\d{0,9})$/.exec(text);
  const seq = match ? Number(match[1]) : Number.NaN;
  if (!(seq <= 2_147_483_647)) throw new InvalidCursorError("cursor is not one this service handed out");
  return seq;
}

export function isKnownStatus(value: string): value is KnownJobStatus {
  return (JOB_STATUSES as readonly string[]).includes(value);
}

export async function jobPage(db: Queryable, query: JobPageQuery): Promise<JobPage> {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > JOB_PAGE_MAX) {
    throw new RangeError(`limit must be a whole number from 1 to ${JOB_PAGE_MAX} (got ${query.limit})`);
  }
  const before = query.cursor === undefined ? null : decodeCursor(query.cursor);
  const statuses = query.statuses && query.statuses.length > 0 ? [...query.statuses] : null;
  // LIKE, not strpos: a trigram index (schema migration 5) serves `LIKE '%...%'` and nothing else.
  const text = query.text ? `%${escapeLike(query.text.toLowerCase())}%` : null;
  // One row more than the page tells whether another page follows, without a count over every job.
  const { rows } = await db.query<JobListRow>(
    `SELECT ${JOB_LIST_SELECT} FROM jobs
     WHERE router_id = $1 AND ($2::uuid IS NULL OR team_id = $2)
       AND ($3::int IS NULL OR seq_id < $3)
       AND ($4::text[] IS NULL OR status = ANY($4::text[]))
       AND ($5::text IS NULL OR lower(description) LIKE $5)
     ORDER BY seq_id DESC LIMIT $6`,
    [query.routerId, query.teamId, before, statuses, text, query.limit + 1],
  );
  const more = rows.length > query.limit;
  const jobs = more ? rows.slice(0, query.limit) : rows;
  const last = jobs[jobs.length - 1];
  return { jobs, nextCursor: more && last ? encodeCursor(last.seq_id) : undefined };
}

/** The text taken literally in a LIKE pattern: backslash, `%` and `_` escaped by LIKE's default escape, a backslash. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
