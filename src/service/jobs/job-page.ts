import { JOB_STATUSES, type KnownJobStatus } from "../../contract/job.js";
import { DESCRIPTION_MAX_CHARS } from "../../contract/limits.js";
import { RouterjobsError } from "../../errors.js";
import type { Queryable } from "../database/database.js";
import { PLAN_EACH_RUN } from "../database/plan-each-run.js";
import { JOB_LIST_SELECT, JOB_RECORD_SELECT, type JobListRow } from "./rows.js";

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
export class InvalidCursorError extends RouterjobsError {
  override readonly name = "InvalidCursorError";
  override readonly code = "RJ_ERR_VALIDATION";
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

/** A whole list's query: a page's, without the page. */
export type JobListQuery = Omit<JobPageQuery, "limit" | "cursor">;

/**
 * Which jobs a list or a page shows, on parameters $1 to $4 and $7 (`listParameters`). $7 is implied by $4:
 * the resource tag of an attempt marker the text holds, which the marker index (schema migration 6, partial on
 * the `strpos` written here as in its definition) finds without reading every job's trigram `rj`; the LIKE
 * still decides.
 */
const FILTER = `router_id = $1 AND ($2::uuid IS NULL OR team_id = $2)
       AND ($3::text[] IS NULL OR status = ANY($3::text[]))
       AND ($4::text IS NULL OR lower(description) LIKE $4)
       AND ($7::text IS NULL OR (strpos(lower(description), '[rj:') > 0 AND rj_marker_tags(description) @> ARRAY[$7::text]))`;

/** `[rj:<tag>-` as schema migration 6's `rj_marker_tags` reads it (lowercased; letters and digits). */
const MARKER_START = /\[rj:([a-z0-9]+)-/;

/** The parameters of `chunkQuery`: the filter's, then the page's (below seq_id `before`, `limit` jobs). */
function listParameters(query: JobListQuery, before: number | null, limit: number): unknown[] {
  const statuses = query.statuses && query.statuses.length > 0 ? [...query.statuses] : null;
  const lowered = query.text?.toLowerCase();
  // LIKE, not strpos: a trigram index (schema migration 5) serves `LIKE '%...%'` and nothing else.
  const text = lowered ? `%${escapeLike(lowered)}%` : null;
  const markerTag = lowered ? (MARKER_START.exec(lowered)?.[1] ?? null) : null;
  return [query.routerId, query.teamId, statuses, text, before, limit, markerTag];
}

/**
 * A page or a chunk: up to $6 jobs the filter matches below seq_id $5 (null: from the newest), newest first,
 * as `select` gives them (CTE `chunk`), read with one job more (CTE `fetched`): whether that one exists is
 * `MORE_BELOW_CHUNK`. The one keyset mechanism of pages (rows for the portal, JSON for the API) and of whole
 * lists.
 */
const chunkQuery = (select: string) =>
  `fetched AS (SELECT ${select} FROM jobs WHERE ${FILTER} AND ($5::int IS NULL OR seq_id < $5)
     ORDER BY seq_id DESC LIMIT $6::int + 1),
   chunk AS (SELECT * FROM fetched ORDER BY seq_id DESC LIMIT $6::int)`;

/**
 * Whether any job the filter matches lies below the chunk, from the one job read past it. Asking the table
 * again (EXISTS below the chunk's last seq_id) scanned a description filter's trigram index a second time,
 * for every lookup `routerjobs apply` sends (figures: docs/performance.md).
 */
const MORE_BELOW_CHUNK = "(SELECT count(*) FROM fetched) > $6::int";

/** One page as rows, for the portal, which renders columns the API's list items leave out. */
export async function jobPage(db: Queryable, query: JobPageQuery): Promise<JobPage> {
  checkLimit(query.limit);
  const before = query.cursor === undefined ? null : decodeCursor(query.cursor);
  const { rows } = await db.query<JobListRow & { more: boolean }>(
    `${PLAN_EACH_RUN} WITH ${chunkQuery(JOB_LIST_SELECT)}
     SELECT chunk.*, ${MORE_BELOW_CHUNK} AS more FROM chunk ORDER BY seq_id DESC`,
    listParameters(query, before, query.limit),
  );
  const jobs = rows.map(({ more: _, ...job }) => job);
  const last = jobs[jobs.length - 1];
  return { jobs, nextCursor: rows[0]?.more && last ? encodeCursor(last.seq_id) : undefined };
}

/**
 * Jobs a statement of `jobListJson` writes. The embedded database runs one statement at a time, so one
 * statement over a whole long list held every other router's statements back until it was done; in chunks,
 * they wait for one chunk at most. A smaller chunk shortens that wait and makes a whole list more statements,
 * so lists are read more slowly while calls keep coming; at this size a call's wait is down to the bench's
 * spread between runs (figures for 500, 200 and 100: docs/performance.md, bench/job-list-isolation.bench.ts;
 * the decision: docs/decisions.md).
 */
export const LIST_CHUNK = 100;

/**
 * How the database writes a list's items: the columns a chunk reads (`seq_id` among them) and, over them, the
 * JSON of one item (the chunk's row is `chunk`).
 */
export interface ListItemSql {
  readonly select: string;
  readonly json: string;
  /** Jobs a statement writes: as many as keep it about as short as the spec's list's (`LIST_CHUNK`). */
  readonly chunk: number;
}

/** The spec's list items (`toJobRecord`). */
const JOB_RECORD_ITEM: ListItemSql = {
  select: JOB_RECORD_SELECT,
  json: "row_to_json(chunk)",
  chunk: LIST_CHUNK,
};

/** Up to `limit` jobs below `before` (null: from the newest), as JSON the database wrote. */
interface JsonChunk {
  /** The jobs' list items, comma-separated; null when none matched. */
  readonly list: string | null;
  /** The lowest seq_id in the chunk: the next chunk starts below it. */
  readonly last: number | null;
  /** Whether any job the query matches lies below the chunk. */
  readonly more: boolean;
}

function jsonChunk(
  db: Queryable,
  query: JobListQuery,
  before: number | null,
  limit: number,
  item: ListItemSql = JOB_RECORD_ITEM,
) {
  return db
    .query<JsonChunk>(
      `${PLAN_EACH_RUN} WITH ${chunkQuery(item.select)}
       SELECT string_agg((${item.json})::text, ',' ORDER BY chunk.seq_id DESC) AS list,
         min(chunk.seq_id) AS last, ${MORE_BELOW_CHUNK} AS more
       FROM chunk`,
      listParameters(query, before, limit),
    )
    .then(({ rows }): JsonChunk => rows[0] ?? { list: null, last: null, more: false });
}

/**
 * Every job the query matches, newest first, as JSON written by the database: the list's items (`item`: the
 * spec's `toJobRecord` unless told otherwise), comma-separated, a chunk at a time, for the service to send as
 * they come. For a router with a long history that is megabytes of JSON; built on the service's event loop it
 * held the loop until it was done, and every other router's call waited behind it. Read in keyset chunks,
 * newest first: each job is in the list once, a job submitted meanwhile is not (its seq_id is above the first
 * chunk's), and a job that changes state meanwhile shows the state its chunk read.
 */
export async function* jobListJson(
  db: Queryable,
  query: JobListQuery,
  item: ListItemSql = JOB_RECORD_ITEM,
): AsyncGenerator<string> {
  let before: number | null = null;
  for (;;) {
    const chunk: JsonChunk = await jsonChunk(db, query, before, item.chunk, item);
    if (chunk.list) yield chunk.list;
    if (!chunk.more || chunk.last === null) return;
    before = chunk.last;
  }
}

/**
 * `jobPage` as the JSON array of its list items, written by the database, with the same cursor: the page
 * answer of the jobs route, which sends it as it is (100 jobs checked and stringified on the event loop
 * were its largest share of a page's time there).
 */
export async function jobPageJson(
  db: Queryable,
  query: JobPageQuery,
): Promise<{ readonly json: string; readonly nextCursor: string | undefined }> {
  checkLimit(query.limit);
  const before = query.cursor === undefined ? null : decodeCursor(query.cursor);
  const chunk = await jsonChunk(db, query, before, query.limit);
  return {
    json: `[${chunk.list ?? ""}]`,
    nextCursor: chunk.more && chunk.last !== null ? encodeCursor(chunk.last) : undefined,
  };
}

function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > JOB_PAGE_MAX) {
    throw new RangeError(`limit must be a whole number from 1 to ${JOB_PAGE_MAX} (got ${limit})`);
  }
}

/** The text taken literally in a LIKE pattern: backslash, `%` and `_` escaped by LIKE's default escape, a backslash. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
