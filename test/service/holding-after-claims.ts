import type { Database } from "../../src/service/database/database.js";
import type { JobRow } from "../../src/service/jobs/rows.js";

/**
 * The database as the scheduler sees it, with `afterClaim` awaited after each committed claim: the window between
 * a claim and the script's start, held open for as long as a test needs. A claim is one statement, whose row
 * is the job with its router's name, online flag and state version (`claimNextJob`).
 */
export function holdingAfterClaims(db: Database) {
  const hooks = { afterClaim: async (_job: JobRow) => {} };
  const wrapped: Database = {
    ...db,
    query: async <Row extends object>(sql: string, params?: readonly unknown[]) => {
      const result = await db.query<Row>(sql, params);
      const claimed = result.rows[0];
      if (claimed && "router_state_version" in claimed) await hooks.afterClaim(claimed as unknown as JobRow);
      return result;
    },
  };
  return { db: wrapped, hooks };
}
