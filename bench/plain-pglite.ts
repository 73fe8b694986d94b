import type { PGlite } from "@electric-sql/pglite";
import type { Database } from "../src/service/database/database.js";
import { preparedStatements } from "../src/service/database/pglite-statements.js";

/**
 * A PGlite behind the store's interface with none of the store's durability work: no lock, no WAL flush before
 * an answer, no thread. Its statements go through the store's prepared statements (src/service/database/pglite-statements.ts)
 * as the store's do, so that what the durability and engine benches compare it with differs only in what they
 * are about: commits acknowledged from the page cache, as PGlite ships, against the store (issue 20).
 */
export function plainPgliteDatabase(db: PGlite): Database {
  const statements = preparedStatements(db);
  const wrap = (inTransaction: boolean) => ({
    query: async <Row extends object>(sql: string, params?: readonly unknown[]) => ({
      rows: await statements.query<Row>(sql, params, inTransaction),
    }),
  });
  return {
    kind: "pglite",
    ...wrap(false),
    transaction: (fn) => db.transaction(() => fn(wrap(true))),
    close: () => db.close(),
  };
}
