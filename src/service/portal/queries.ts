import type { Queryable } from "../database/database.js";
import type { JobRow } from "../jobs/rows.js";
import { fingerprintOf, routerFingerprintColumn } from "./fingerprints.js";

/** What the portal's pages read. `teamId` null is the admin's all-teams view; otherwise rows of that team only. */

export interface RouterSummary {
  id: string;
  team_id: string;
  team_name: string | null;
  name: string;
  online: boolean;
  device: boolean;
  last_job_id: string | null;
  last_description: string | null;
  last_status: string | null;
  last_created_at: Date | null;
  failed_last_day: number;
}

const DAY_MS = 86_400_000;

export async function routerSummaries(
  db: Queryable,
  teamId: string | null,
  now: Date,
): Promise<RouterSummary[]> {
  const { rows } = await db.query<RouterSummary>(
    `SELECT r.id, r.team_id, (SELECT t.name FROM teams t WHERE t.id = r.team_id) AS team_name, r.name, r.online,
       r.device_host IS NOT NULL AS device, last.id AS last_job_id, last.description AS last_description, last.status AS last_status,
       last.created_at AS last_created_at,
       (SELECT count(*)::int FROM jobs f WHERE f.router_id = r.id AND f.status = 'failed' AND f.failed_at > $2)
         AS failed_last_day
     FROM routers r
     LEFT JOIN LATERAL (SELECT id, description, status, created_at FROM jobs j WHERE j.router_id = r.id
                        ORDER BY seq_id DESC LIMIT 1) last ON true
     WHERE r.removed_at IS NULL AND ($1::uuid IS NULL OR r.team_id = $1)
     ORDER BY r.name, r.id`,
    [teamId, new Date(now.getTime() - DAY_MS)],
  );
  return rows;
}

export interface PortalRouter {
  id: string;
  team_id: string;
  name: string;
  online: boolean;
  device: boolean;
  /**
   * Its log's fingerprint (fingerprints.ts), read with the router: a log page reads it before the jobs, so that
   * a change in between makes the page refresh once more, never miss an update, and takes no statement of its
   * own for it (each is a round trip to the embedded store's thread).
   */
  fingerprint: string;
}

export async function portalRouter(
  db: Queryable,
  teamId: string | null,
  routerId: string,
): Promise<PortalRouter | undefined> {
  const { rows } = await db.query<Omit<PortalRouter, "fingerprint"> & { fingerprint: string | null }>(
    `SELECT r.id, r.team_id, r.name, r.online, r.device_host IS NOT NULL AS device,
       ${routerFingerprintColumn("r.id")} AS fingerprint
     FROM routers r WHERE r.id = $1 AND ($2::uuid IS NULL OR r.team_id = $2) AND r.removed_at IS NULL`,
    [routerId, teamId],
  );
  const row = rows[0];
  return row ? { ...row, fingerprint: fingerprintOf(row.fingerprint) } : undefined;
}

export async function portalJob(
  db: Queryable,
  teamId: string | null,
  jobId: string,
): Promise<(JobRow & { router_name: string }) | undefined> {
  const { rows } = await db.query<JobRow & { router_name: string }>(
    `SELECT j.*, r.name AS router_name FROM jobs j JOIN routers r ON r.id = j.router_id
     WHERE j.id = $1 AND ($2::uuid IS NULL OR j.team_id = $2)`,
    [jobId, teamId],
  );
  return rows[0];
}

export interface Delivery {
  seq: number;
  state: string;
  url: string;
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  delivered_at: Date | null;
  abandoned_at: Date | null;
  last_error: string | null;
}

/** The job's notifications in the outbox, in state order. */
export async function deliveries(db: Queryable, jobId: string): Promise<Delivery[]> {
  const { rows } = await db.query<Delivery>(
    `SELECT seq, payload->>'status' AS state, url, attempts, created_at, next_attempt_at, delivered_at,
       abandoned_at, last_error
     FROM outbox WHERE job_id = $1 ORDER BY seq`,
    [jobId],
  );
  return rows;
}
