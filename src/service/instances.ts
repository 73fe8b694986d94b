/**
 * Service instances sharing one database, and the housekeeping that forgets what no longer matters. An
 * instance registers at start, beats while it runs, and is dead to the others once it stops beating; the
 * jobs it held are then recovered (`recoverJobs`).
 */
import { IDEMPOTENCY_TTL_MS } from "../contract/limits.js";
import type { Queryable } from "./database/database.js";

/** An instance silent for this long is dead: its claimed jobs are recovered by the others. */
export const STALE_INSTANCE_MS = 30_000;
/** Delivered or abandoned notifications are kept this long for inspection, then deleted. */
const OUTBOX_RETENTION_MS = 7 * 24 * 3_600_000;
/** A dead instance's row is kept a day, so that an operator can see it went away. */
const INSTANCE_RETENTION_MS = 24 * 3_600_000;

export async function registerInstance(db: Queryable, instanceId: string, now: Date): Promise<void> {
  await db.query("INSERT INTO instances (id, started_at, heartbeat_at) VALUES ($1, $2, $2)", [
    instanceId,
    now,
  ]);
}

export async function heartbeat(db: Queryable, instanceId: string, now: Date): Promise<void> {
  await db.query("UPDATE instances SET heartbeat_at = $2 WHERE id = $1", [instanceId, now]);
}

export async function unregisterInstance(db: Queryable, instanceId: string): Promise<void> {
  await db.query("DELETE FROM instances WHERE id = $1", [instanceId]);
}

/**
 * Instances other than `self` that hold jobs and are dead: silent for STALE_INSTANCE_MS, or any at all when
 * `self` is the only process on the database (PGlite), where every other claim is from a previous run.
 */
export async function deadClaimants(
  db: Queryable,
  self: string,
  options: { exclusive: boolean; now: Date },
): Promise<string[]> {
  const { rows } = await db.query<{ claimed_by: string }>(
    `SELECT DISTINCT claimed_by FROM jobs WHERE claimed_by IS NOT NULL AND claimed_by <> $1
       AND ($2 OR claimed_by NOT IN (SELECT id FROM instances WHERE heartbeat_at >= $3))`,
    [self, options.exclusive, new Date(options.now.getTime() - STALE_INSTANCE_MS)],
  );
  return rows.map((row) => row.claimed_by);
}

/** Routers with at least one job waiting to be claimed, with their team. */
export async function routersWithQueuedJobs(db: Queryable): Promise<{ routerId: string; teamId: string }[]> {
  const { rows } = await db.query<{ router_id: string; team_id: string }>(
    "SELECT DISTINCT router_id, team_id FROM jobs WHERE execution = 'queued'",
  );
  return rows.map((row) => ({ routerId: row.router_id, teamId: row.team_id }));
}

/** Forgets expired idempotency keys, old outbox rows and long-dead instances. */
export async function forgetExpired(db: Queryable, now: Date): Promise<void> {
  const ago = (ms: number) => new Date(now.getTime() - ms);
  await db.query("DELETE FROM idempotency_keys WHERE created_at < $1", [ago(IDEMPOTENCY_TTL_MS)]);
  await db.query("DELETE FROM outbox WHERE coalesce(delivered_at, abandoned_at) < $1", [
    ago(OUTBOX_RETENTION_MS),
  ]);
  await db.query("DELETE FROM instances WHERE heartbeat_at < $1", [ago(INSTANCE_RETENTION_MS)]);
}
