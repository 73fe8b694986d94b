import type { PGlite } from "@electric-sql/pglite";
import type { Database } from "../src/store/database.js";

/**
 * A PGlite behind the store's interface with none of the store's own work: no lock, no WAL flush before an
 * answer, no lanes. What PGlite as it ships gives the service, the baseline the durability and engine benches
 * compare the store with (issue 20).
 */
export function plainPgliteDatabase(db: PGlite): Database {
  const wrap = (q: Pick<PGlite, "query">) => ({
    query: async <Row extends object>(sql: string, params?: readonly unknown[]) => ({
      rows: (await q.query<Row>(sql, params ? [...params] : undefined)).rows,
    }),
  });
  return {
    kind: "pglite",
    ...wrap(db),
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    close: () => db.close(),
  };
}
