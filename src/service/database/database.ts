import pg from "pg";
import { openPgliteOnThread } from "./pglite-on-thread.js";

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
   * PGlite: the database is lost to this process: its data directory's lock was lost (this process stalled
   * past its refresh and another one may hold the directory now), or the thread it runs on ended. From then on
   * every query fails with that error; the owner should stop serving.
   */
  readonly onLost?: (error: Error) => void;
}

export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location);
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return isPostgresUrl(options.location)
    ? openPostgres(options)
    : openPgliteOnThread(options.location, options.onLost);
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
