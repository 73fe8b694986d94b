import type { Queryable } from "../database/database.js";
import { DESTINATION_PATTERN } from "./destination-gate.js";

export interface OutboxRow {
  id: string;
  job_id: string;
  seq: number;
  team_id: string;
  url: string;
  payload: unknown;
  created_at: Date;
  attempts: number;
  signing_secret: string | null;
}

/** What one lease may take. */
export interface LeaseLimits {
  /** Rows in all. */
  readonly limit: number;
  /** Rows per destination (`https://host:port`), for the destinations named; 0 leaves theirs where they are. */
  readonly perDestination: ReadonlyMap<string, number>;
  /** Rows per destination for every other destination. */
  readonly otherwise: number;
  /** Teams whose notifications stay where they are this time (they may take no delivery slot now). */
  readonly closedTeams?: readonly string[];
}

/** What a lease took, and what it tells of the rest of the outbox. */
export interface Lease {
  readonly rows: OutboxRow[];
  /**
   * Deliverable rows were left where they are: by the limits, or because their destination or team may take
   * none now. False: nothing more is deliverable until `nextDueAt`, a delivery is acknowledged or abandoned (the
   * job's next state is then due), or a state change queues one.
   */
  readonly more: boolean;
  /** When the earliest notification that is not due yet comes due (a retry's time), if any is waiting. */
  readonly nextDueAt: Date | undefined;
}

/**
 * Leases deliverable notifications: due, not leased by a live worker, and the earliest undelivered one of their
 * job (a later state is never sent before an earlier one is acknowledged or abandoned), no more of a destination
 * than it may take. SKIP LOCKED lets several instances share the outbox.
 *
 * What a round reads grows with what is due, not with what waits: a job's later states are `blocked` (out of
 * `outbox_due`, schema.ts, migration 7) until its earlier one is done, and rows in back-off are past the range
 * read. A destination or team that may take none is left out before the earliest rows are picked, so that its
 * backlog never hides another's notifications. The others are ranked per destination among the earliest rows
 * only (four times the limit): ranking the whole backlog would cost a round as much as the backlog is long.
 */
export async function leaseNotifications(
  db: Queryable,
  now: Date,
  leaseMs: number,
  { limit, perDestination, otherwise, closedTeams = [] }: LeaseLimits,
): Promise<Lease> {
  const closed = [...perDestination]
    .filter(([, allowance]) => allowance <= 0)
    .map(([destination]) => destination);
  const { rows } = await db.query<
    Partial<OutboxRow> & { candidates: number; left_out_due: boolean; next_due_at: Date | null }
  >(
    `WITH early AS (
       SELECT o.id, o.next_attempt_at,
         coalesce(substring(o.url from '${DESTINATION_PATTERN}'), o.url) AS destination
       FROM outbox o
       WHERE o.delivered_at IS NULL AND o.abandoned_at IS NULL AND NOT o.blocked AND o.next_attempt_at <= $1
         AND (o.locked_until IS NULL OR o.locked_until < $1)
         AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.job_id = o.job_id AND e.seq < o.seq
                         AND e.delivered_at IS NULL AND e.abandoned_at IS NULL)
         AND NOT (o.url LIKE ANY($4::text[])) AND NOT (o.team_id = ANY($9::uuid[]))
       ORDER BY o.next_attempt_at LIMIT $5 FOR UPDATE SKIP LOCKED
     ), chosen AS (
       SELECT ranked.id FROM (
         SELECT early.id, early.next_attempt_at,
           row_number() OVER (PARTITION BY early.destination ORDER BY early.next_attempt_at, early.id) AS rank,
           coalesce(allowed.allowance, $6) AS allowance
         FROM early
         LEFT JOIN unnest($7::text[], $8::int[]) AS allowed (destination, allowance)
           ON allowed.destination = early.destination
       ) ranked
       WHERE ranked.rank <= ranked.allowance
       ORDER BY ranked.next_attempt_at LIMIT $3
     ), leased AS (
       UPDATE outbox SET locked_until = $2, attempts = attempts + 1
       FROM chosen WHERE outbox.id = chosen.id
       RETURNING outbox.id, outbox.job_id, outbox.seq, outbox.team_id, outbox.url, outbox.payload,
         outbox.created_at, outbox.attempts,
         (SELECT signing_secret FROM teams WHERE teams.id = outbox.team_id) AS signing_secret
     )
     SELECT leased.*, summary.* FROM (
       SELECT (SELECT count(*) FROM early)::int AS candidates,
         (cardinality($4::text[]) + cardinality($9::uuid[]) > 0 AND EXISTS (
           SELECT 1 FROM outbox x
           WHERE x.delivered_at IS NULL AND x.abandoned_at IS NULL AND NOT x.blocked AND x.next_attempt_at <= $1
             AND (x.locked_until IS NULL OR x.locked_until < $1)
             AND (x.url LIKE ANY($4::text[]) OR x.team_id = ANY($9::uuid[])))) AS left_out_due,
         (SELECT min(next_attempt_at) FROM outbox
          WHERE delivered_at IS NULL AND abandoned_at IS NULL AND NOT blocked AND next_attempt_at > $1) AS next_due_at
     ) summary LEFT JOIN leased ON true`,
    [
      now,
      new Date(now.getTime() + leaseMs),
      limit,
      closed.flatMap(destinationPatterns),
      4 * limit,
      otherwise,
      [...perDestination.keys()],
      [...perDestination.values()],
      closedTeams,
    ],
  );
  const summary = rows[0];
  const leased = rows
    .filter((row) => row.id !== null && row.id !== undefined)
    .map(({ candidates, left_out_due, next_due_at, ...row }) => row as OutboxRow);
  return {
    rows: leased,
    more: (summary?.candidates ?? 0) > leased.length || summary?.left_out_due === true,
    nextDueAt: summary?.next_due_at ?? undefined,
  };
}

/** Gives leases back untouched (the attempt is not counted): leased rows that did not start in time. */
export async function releaseLeases(db: Queryable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    "UPDATE outbox SET locked_until = NULL, attempts = attempts - 1 WHERE id = ANY($1::uuid[])",
    [ids],
  );
}

/**
 * Gives back every lease: for a process that is the only one on its database (PGlite) as it starts, when every
 * lease is a dead process's. Their attempts stay counted, made or not: only their backoff grows by a step.
 */
export async function releaseAllLeases(db: Queryable): Promise<number> {
  const { rows } = await db.query(
    `UPDATE outbox SET locked_until = NULL
     WHERE locked_until IS NOT NULL AND delivered_at IS NULL AND abandoned_at IS NULL AND NOT blocked
     RETURNING id`,
  );
  return rows.length;
}

/** `https://host:port` -> LIKE patterns for its URLs (`%`, `_` and `\` in it taken literally). */
function destinationPatterns(destination: string): string[] {
  const literal = destination.replace(/[\\%_]/g, (char) => `\\${char}`);
  return [literal, `${literal}/%`, `${literal}?%`, `${literal}#%`];
}

/**
 * Moves the due notifications of `destination`, whose circuit has opened, to `until`, when it half-opens: due
 * but not deliverable, each round would read them to leave them out. Their attempts and back-off are unchanged,
 * and rows leased now keep their lease. What it reads is what is due before `until`.
 */
export async function deferDestination(
  db: Queryable,
  destination: string,
  until: Date,
  now: Date,
): Promise<number> {
  const { rows } = await db.query(
    `UPDATE outbox SET next_attempt_at = $2
     WHERE delivered_at IS NULL AND abandoned_at IS NULL AND NOT blocked AND next_attempt_at < $2
       AND (locked_until IS NULL OR locked_until < $3) AND url LIKE ANY($1::text[])
     RETURNING id`,
    [destinationPatterns(destination), until, now],
  );
  return rows.length;
}

export async function markDelivered(db: Queryable, ids: readonly string[], now: Date): Promise<void> {
  await db.query(
    "UPDATE outbox SET delivered_at = $2, locked_until = NULL, last_error = NULL WHERE id = ANY($1::uuid[])",
    [ids, now],
  );
}

/** Schedules the next attempt, or abandons the notification when `nextAttemptAt` is undefined. */
export async function markFailed(
  db: Queryable,
  id: string,
  error: string,
  now: Date,
  nextAttemptAt: Date | undefined,
): Promise<void> {
  await db.query(
    `UPDATE outbox SET locked_until = NULL, last_error = $2, next_attempt_at = coalesce($3, next_attempt_at),
       abandoned_at = CASE WHEN $3::timestamptz IS NULL THEN $4::timestamptz ELSE NULL END
     WHERE id = $1`,
    [id, error.slice(0, 500), nextAttemptAt ?? null, now],
  );
}

export interface OutboxCounts {
  pending: number;
  delivered: number;
  abandoned: number;
}

export async function outboxCounts(db: Queryable): Promise<OutboxCounts> {
  const { rows } = await db.query<{ pending: number; delivered: number; abandoned: number }>(
    `SELECT count(*) FILTER (WHERE delivered_at IS NULL AND abandoned_at IS NULL)::int AS pending,
       count(delivered_at)::int AS delivered, count(abandoned_at)::int AS abandoned FROM outbox`,
  );
  return rows[0] ?? { pending: 0, delivered: 0, abandoned: 0 };
}
