import { randomUUID } from "node:crypto";
import pg from "pg";
import { type Database, openDatabase } from "../../../src/service/database/database.js";
import { migrate } from "../../../src/service/database/migrations.js";
import type { JobRow } from "../../../src/service/jobs/rows.js";
import { submitJob } from "../../../src/service/jobs/submit.js";
import { SERVICE_MIGRATIONS } from "../../../src/service/schema.js";
import { applySeed } from "../../../src/service/seed.js";
import { startPostgres } from "../../helpers/postgres.js";
import { ROUTER_A, SEED, TEAM_A } from "../harness.js";

/** The service's store in memory, migrated and seeded with the harness's two teams. */
export async function openSeededStore(): Promise<Database> {
  const db = await openDatabase({ location: "memory://" });
  await migrate(db, "service", SERVICE_MIGRATIONS);
  await applySeed(db, SEED as never);
  return db;
}

/**
 * The service's store on a PostgreSQL server of its own, migrated and seeded as `openSeededStore`, and `other`, a
 * second connection to it: the transaction a test holds open while the store's statement waits for its locks.
 */
export async function openSeededPostgres(): Promise<{
  readonly db: Database;
  readonly other: pg.Client;
  close(): Promise<void>;
}> {
  const server = await startPostgres();
  const db = await openDatabase({ location: server.url });
  await migrate(db, "service", SERVICE_MIGRATIONS);
  await applySeed(db, SEED as never);
  const other = new pg.Client({ connectionString: server.url });
  await other.connect();
  return {
    db,
    other,
    close: async () => {
      await other.end();
      await db.close();
      await server.stop();
    },
  };
}

/** A job of team A that needs no acknowledgement: completed at once, its notification to `url` due at `now`. */
export async function notifyAt(db: Database, url: string, now = new Date()): Promise<void> {
  const result = await submitJob(db, {
    teamId: TEAM_A,
    routerId: ROUTER_A,
    request: {
      description: url,
      script: ":put 1",
      make_backup: false,
      express_execute: false,
      needs_acknowledgement: false,
      notify_url: url,
    },
    idempotencyKey: randomUUID(),
    requestId: randomUUID(),
    now,
    idempotencyTtlMs: 1000,
  });
  if (result.kind !== "created") throw new Error(result.kind);
}

/**
 * A job of team A queued for `routerId` (it needs the router's acknowledgement), its notifications going to
 * `notifyUrl` (none when null).
 */
export async function submitQueued(
  db: Database,
  routerId: string,
  description: string,
  {
    notifyUrl = "https://example.test/hook",
    now = new Date(),
  }: { notifyUrl?: string | null; now?: Date } = {},
): Promise<JobRow> {
  const result = await submitJob(db, {
    teamId: TEAM_A,
    routerId,
    request: {
      description,
      script: ":put 1",
      make_backup: false,
      express_execute: false,
      needs_acknowledgement: true,
      ...(notifyUrl === null ? {} : { notify_url: notifyUrl }),
    },
    idempotencyKey: randomUUID(),
    requestId: randomUUID(),
    now,
    idempotencyTtlMs: 1000,
  });
  if (result.kind !== "created") throw new Error(result.kind);
  return result.job;
}

/** The same store, `seen` told of every statement it ran and what it answered. */
export function watched(
  db: Database,
  seen: (sql: string, params: readonly unknown[] | undefined, rows: readonly unknown[]) => void,
): Database {
  return {
    kind: db.kind,
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
    query: async (sql, params) => {
      const result = await db.query(sql, params);
      seen(sql, params, result.rows);
      return result as never;
    },
  };
}
