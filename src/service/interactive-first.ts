import type { Queryable } from "../store/database.js";

/**
 * Reads of a router's long history go after the calls in flight, on a store that runs one statement at a
 * time.
 *
 * The embedded database (PGlite, on a thread of its own) runs its statements one after another. A list of
 * 10,000 jobs is some 50 of them back to back (job-page.ts reads it in chunks), and a lookup by text one of 3
 * ms; a synchronous call to another router arriving meanwhile waited behind the statement running and, for
 * each of its own statements, behind the list's next one (bench/job-list-isolation.bench.ts: its p99 at
 * 2.4-3.4x idle). Here a bulk read's statement starts only while no other request is in flight: a call waits
 * for at most the one statement already running. So that a list still moves under a steady stream of calls,
 * a statement that has waited `maxDeferMs` goes anyway.
 *
 * A request is in flight from its first hook until its answer is sent or its client has gone. With a store
 * of several connections (PostgreSQL) nothing waits: `maxDeferMs` 0.
 */
export class InteractiveFirst {
  private calls = 0;
  private readonly waiting = new Set<() => void>();
  private deferredCount = 0;

  constructor(private readonly maxDeferMs: number) {}

  /** A request other than a bulk read begins; the returned function ends it (again: does nothing). */
  begin(): () => void {
    this.calls++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.calls--;
      if (this.calls === 0) for (const go of [...this.waiting]) go();
    };
  }

  /** Resolves when a bulk read's next statement may start: no call in flight, or `maxDeferMs` waited. */
  turn(): Promise<void> {
    if (this.calls === 0 || this.maxDeferMs <= 0) return Promise.resolve();
    this.deferredCount++;
    return new Promise((resolve) => {
      const go = () => {
        clearTimeout(timer);
        this.waiting.delete(go);
        resolve();
      };
      const timer = setTimeout(go, this.maxDeferMs);
      this.waiting.add(go);
    });
  }

  /** `db` for a bulk read: each statement takes its turn first. */
  yielding(db: Queryable): Queryable {
    return {
      query: async (sql, params) => {
        await this.turn();
        return db.query(sql, params);
      },
    };
  }

  /** Requests in flight other than bulk reads. */
  get inFlight(): number {
    return this.calls;
  }

  /** Bulk statements that waited for their turn so far (for tests and benches). */
  get deferred(): number {
    return this.deferredCount;
  }
}
