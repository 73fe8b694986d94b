import { createHash } from "node:crypto";
import type { Queryable } from "../database/database.js";

/**
 * Fingerprints of what a live page shows that can still change. An open page's event stream polls one and
 * announces a change when it differs. Terminal jobs never change again, so a router's newest job and its open
 * jobs (index scans on `(router_id, seq_id)` and `jobs_open`) are enough; every instance sharing a PostgreSQL
 * computes the same value. Hashed: a page carries it in its events URL, and many open jobs would make it long.
 */
export type Fingerprint = () => Promise<string>;

const OPEN_JOBS = "status IN ('pending', 'loaded', 'running')";

/** One router's part: its online state, its newest job, its open jobs' states. */
const routerPart = (router: string) => `concat_ws(':',
  ${router},
  (SELECT online::text FROM routers WHERE id = ${router}),
  (SELECT max(seq_id)::text FROM jobs WHERE router_id = ${router}),
  (SELECT string_agg(seq_id::text || status, ',' ORDER BY seq_id) FROM jobs
   WHERE router_id = ${router} AND ${OPEN_JOBS}))`;

const hashed = (text: string | null | undefined): string =>
  createHash("sha256")
    .update(text ?? "")
    .digest("base64url")
    .slice(0, 22);

/** A router's orchestration log. */
export async function routerFingerprint(db: Queryable, routerId: string): Promise<string> {
  const { rows } = await db.query<{ fingerprint: string | null }>(
    `SELECT ${routerPart("$1::uuid")} AS fingerprint`,
    [routerId],
  );
  return hashed(rows[0]?.fingerprint);
}

/**
 * The same fingerprint as a column of a statement that reads the router (`router` names its id there), for a
 * page that reads the router anyway: `fingerprintOf` turns the column into what `routerFingerprint` returns.
 */
export const routerFingerprintColumn = (router: string): string => routerPart(router);
export const fingerprintOf = hashed;

/**
 * The routers list: every router's part (its last job and failed count move with its jobs' states). A failed
 * job leaving the 24-hour window changes nothing here: the count is right again at the next change or load.
 */
export async function routersFingerprint(db: Queryable, teamId: string | null): Promise<string> {
  const { rows } = await db.query<{ fingerprint: string | null }>(
    `SELECT string_agg(${routerPart("r.id")}, '|' ORDER BY r.id) AS fingerprint
     FROM routers r WHERE r.removed_at IS NULL AND ($1::uuid IS NULL OR r.team_id = $1)`,
    [teamId],
  );
  return hashed(rows[0]?.fingerprint);
}

/**
 * A job page: its router's part (the job's own state) and its notifications, which go on changing after the
 * job ended (a retry, a delivery, an abandonment).
 */
export async function jobFingerprint(db: Queryable, jobId: string, routerId: string): Promise<string> {
  const { rows } = await db.query<{ fingerprint: string | null }>(
    `SELECT concat_ws('#', ${routerPart("$2::uuid")},
       (SELECT string_agg(concat_ws(':', seq, attempts, next_attempt_at, delivered_at, abandoned_at), ','
                          ORDER BY seq)
        FROM outbox WHERE job_id = $1)) AS fingerprint`,
    [jobId, routerId],
  );
  return hashed(rows[0]?.fingerprint);
}
