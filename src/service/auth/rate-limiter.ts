import type { RateLimit } from "../../contract/duration.js";
import { decide, type RateDecision, type RateLimiter } from "../../platform/sliding-window.js";
import type { Database } from "../database/database.js";

export {
  decide,
  MemoryRateLimiter,
  type RateDecision,
  type RateLimiter,
} from "../../platform/sliding-window.js";

/**
 * The same log in PostgreSQL, so that several instances share one limit per key: one transaction under a
 * per-key advisory lock reads the window and inserts the grant.
 */
export class DatabaseRateLimiter implements RateLimiter {
  constructor(
    private readonly db: Database,
    private readonly limit: RateLimit,
  ) {}

  take(key: string, now: number): Promise<RateDecision> {
    return this.db.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('routerjobs-rate:' || $1))", [key]);
      const since = new Date(now - this.limit.windowMs);
      await tx.query("DELETE FROM rate_grants WHERE key = $1 AND granted_at <= $2", [key, since]);
      const { rows } = await tx.query<{ granted_at: Date }>(
        "SELECT granted_at FROM rate_grants WHERE key = $1 ORDER BY granted_at",
        [key],
      );
      const decision = decide(
        rows.map((row) => row.granted_at.getTime()),
        this.limit,
        now,
      );
      if (decision.allowed) {
        await tx.query("INSERT INTO rate_grants (key, granted_at) VALUES ($1, $2)", [key, new Date(now)]);
      }
      return decision;
    });
  }
}
