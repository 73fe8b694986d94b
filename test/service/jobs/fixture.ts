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

/**
 * A job of team A (or the team given, on its router) that needs no acknowledgement: completed at once, its
 * notification to `url` due at `now`. Returns the job's id.
 */
export async function notifyAt(
  db: Database,
  url: string,
  now = new Date(),
  { teamId = TEAM_A, routerId = ROUTER_A }: { teamId?: string; routerId?: string } = {},
): Promise<string> {
  const result = await submitJob(db, {
    teamId,
    routerId,
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
  return result.job.id;
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

/**
 * How many rows of `table` the statement `sql` reads: every row its scans of the table return (an index probe
 * repeated per row counts each time), from `EXPLAIN ANALYZE`. The statement runs in a transaction that is rolled
 * back, so that a write is measured and undone.
 */
export async function rowsRead(
  db: Database,
  table: string,
  sql: string,
  params: readonly unknown[] | undefined,
): Promise<number> {
  interface PlanNode {
    "Relation Name"?: string;
    "Actual Rows"?: number;
    "Actual Loops"?: number;
    Plans?: PlanNode[];
  }
  const sum = (node: PlanNode): number =>
    (node["Relation Name"] === table ? (node["Actual Rows"] ?? 0) * (node["Actual Loops"] ?? 0) : 0) +
    (node.Plans ?? []).reduce((total, child) => total + sum(child), 0);
  const rolledBack = new Error("rolled back");
  let read = 0;
  await db
    .transaction(async (tx) => {
      const { rows } = await tx.query<{ "QUERY PLAN": unknown }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
        params,
      );
      const explained = rows[0]?.["QUERY PLAN"];
      const [plan] = (typeof explained === "string" ? JSON.parse(explained) : explained) as {
        Plan: PlanNode;
      }[];
      read = plan ? sum(plan.Plan) : 0;
      throw rolledBack;
    })
    .catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
  return read;
}
