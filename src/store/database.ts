import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import pg from "pg";
import { lockDataDirectory } from "./data-directory-lock.js";
import {
  DurableNodeFS,
  durableStartParams,
  mayWrite,
  type WalFlusher,
  walFlusher,
} from "./pglite-durability.js";
import { freshDatabaseTarball, initialiseDataDirectory } from "./pglite-init.js";
import { keepWasmAtBaselineTier, PGLITE_MEMORY_SETTINGS } from "./pglite-memory.js";

/**
 * One SQL surface over embedded PGlite (a data directory, one process) and PostgreSQL (a URL, several
 * processes). The service and the receiver write plain PostgreSQL SQL against this interface, so both back
 * ends run exactly the same statements.
 */
export interface Queryable {
  query<Row extends object = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<{ rows: Row[] }>;
}

export interface Database extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `fn` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://...` for PostgreSQL; otherwise a PGlite data directory (`memory://` for a throwaway one). */
  readonly location: string;
  /** Pool size for PostgreSQL. @default 10 */
  readonly maxConnections?: number;
  /**
   * PGlite: the data directory's lock was lost (this process stalled past its refresh and another one may hold
   * the directory now). From then on every query fails with that error; the owner should stop serving.
   */
  readonly onLockLost?: (error: Error) => void;
}

export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location);
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return isPostgresUrl(options.location)
    ? openPostgres(options)
    : openPglite(options.location, options.onLockLost);
}

/**
 * PostgreSQL extensions the schemas may create. pg_trgm: a trigram index finds the jobs whose description
 * contains a text without reading every job of the router (the service's `text` filter, schema migration 5).
 */
const EXTENSIONS = { pg_trgm };

/**
 * PostgreSQL settings for embedded PGlite: its memory (pglite-memory.ts), and the planner's cost of a random
 * page read. PostgreSQL's default (4, for spinning disks) made the planner read all of a router's 10,000 jobs
 * (33 ms) rather than use the trigram index (3 ms) for a marker lookup; PGlite's pages are in this process's
 * buffers or the page cache, where 1.1 is the usual setting.
 */
const PGLITE_SETTINGS: readonly string[] = [...PGLITE_MEMORY_SETTINGS, "random_page_cost=1.1"];

/** A data directory is locked while open (a second process would corrupt it); `memory://` needs no lock. */
async function openPglite(dataDir: string, onLockLost?: (error: Error) => void): Promise<Database> {
  keepWasmAtBaselineTier();
  // A throwaway database has no disk to reach: it keeps PGlite's own start (no fsync, synchronous commits).
  if (dataDir === "memory://") {
    const fresh = await freshDatabaseTarball();
    return wrapPglite(
      await PGlite.create({
        loadDataDir: fresh && new Blob([fresh]),
        postgresqlconf: [...PGLITE_SETTINGS],
        extensions: EXTENSIONS,
      }),
      async () => {},
      () => undefined,
      { noteWrite: () => {}, durable: async () => {} },
    );
  }
  let lost: Error | undefined;
  const unlock = await lockDataDirectory(dataDir, (error) => {
    lost = error;
    onLockLost?.(error);
  });
  try {
    await initialiseDataDirectory(dataDir);
    const db = await PGlite.create({
      dataDir,
      fs: new DurableNodeFS(dataDir),
      startParams: durableStartParams(),
      postgresqlconf: [...PGLITE_SETTINGS],
      extensions: EXTENSIONS,
    });
    return wrapPglite(db, unlock, () => lost, walFlusher(db));
  } catch (error) {
    await unlock();
    throw error;
  }
}

/**
 * `lost()` names why the data directory is no longer this process's: then nothing runs any more.
 * `flusher.durable()` resolves once what was committed so far is on disk: every query and transaction waits for
 * it before it resolves, so nothing is answered from a commit that a power loss could undo.
 */
function wrapPglite(
  db: PGlite,
  unlock: () => Promise<void>,
  lost: () => Error | undefined,
  flusher: WalFlusher,
): Database {
  const fence = () => {
    const error = lost();
    if (error) throw error;
  };
  return {
    kind: "pglite",
    query: async <Row extends object>(sql: string, params?: readonly unknown[]) => {
      fence();
      const result = await db.query<Row>(sql, params ? [...params] : undefined);
      if (mayWrite(sql)) flusher.noteWrite();
      await flusher.durable();
      return { rows: result.rows };
    },
    transaction: async (fn) => {
      const value = await db.transaction((tx) =>
        fn({
          query: async <Row extends object>(sql: string, params?: readonly unknown[]) => {
            fence();
            const result = await tx.query<Row>(sql, params ? [...params] : undefined);
            return { rows: result.rows };
          },
        }),
      );
      flusher.noteWrite();
      await flusher.durable();
      return value;
    },
    close: async () => {
      await db.close();
      await unlock();
    },
  };
}

async function openPostgres(options: DatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({ connectionString: options.location, max: options.maxConnections ?? 10 });
  // An idle client that loses its connection emits 'error'; without a listener that would crash the process.
  pool.on("error", () => {});
  await pool.query("SELECT 1");
  return {
    kind: "postgres",
    query: async <Row extends object>(sql: string, params?: readonly unknown[]) => {
      const result = await pool.query(sql, params ? [...params] : undefined);
      return { rows: result.rows as Row[] };
    },
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const value = await fn({
          query: async <Row extends object>(sql: string, params?: readonly unknown[]) => {
            const result = await client.query(sql, params ? [...params] : undefined);
            return { rows: result.rows as Row[] };
          },
        });
        await client.query("COMMIT");
        return value;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
