import type { Database } from "../database/database.js";
import { revocationsBegun } from "./revocations.js";

/**
 * What this process has verified by a lookup (an API token's team, a portal session), kept so that a request
 * on the embedded store skips that lookup: each statement there is a round trip to the database's thread
 * (docs/decisions.md), and an API call or a portal page took one for its credential before its own.
 *
 * Exact, not a cache that may be stale: a service on PGlite is the only process on its store (its data
 * directory is locked), a credential stops being valid only when it is revoked (`revoking`) or expires, and
 * every revocation runs in this process. A verified value is trusted only while no revocation has begun since
 * its lookup began. On PostgreSQL another instance may revoke: `forStore` gives nothing there.
 */
export class Verified<T> {
  private readonly values = new Map<string, { readonly value: T; readonly revocations: number }>();

  /** @param capacity Values kept; past it the memory starts again empty (a service has a handful). */
  constructor(private readonly capacity = 1024) {}

  /** A memory for `db`'s credentials, or undefined where another process may revoke them. */
  static forStore<T>(db: Pick<Database, "kind">, capacity?: number): Verified<T> | undefined {
    return db.kind === "pglite" ? new Verified<T>(capacity) : undefined;
  }

  /** The value verified for `key`, if no revocation has begun since. */
  known(key: string): T | undefined {
    const entry = this.values.get(key);
    return entry && entry.revocations === revocationsBegun() ? entry.value : undefined;
  }

  /** Runs `lookup` and keeps what it found, unless a revocation began meanwhile. */
  async verify(key: string, lookup: () => Promise<T | undefined>): Promise<T | undefined> {
    const revocations = revocationsBegun();
    const value = await lookup();
    if (value !== undefined && revocations === revocationsBegun()) {
      if (this.values.size >= this.capacity) this.values.clear();
      this.values.set(key, { value, revocations });
    }
    return value;
  }
}
