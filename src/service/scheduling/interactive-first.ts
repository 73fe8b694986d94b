import type { Queryable } from "../database/database.js";

interface Waiting {
  /** Starts the statement. */
  readonly go: () => void;
  /** Whether it has waited its bound at the head of the line. */
  overdue: boolean;
  /** Set once it waits for a call at the head of the line (counted then in `deferred`): its bound. */
  timer?: NodeJS.Timeout;
}

/**
 * Reads of a router's long history go after the calls in flight, on a store that runs one statement at a
 * time.
 *
 * The embedded database (PGlite, on a thread of its own) runs its statements one after another. A long
 * router's list is many of them back to back (job-page.ts reads it in chunks), and a lookup by text one; a
 * synchronous call to another router arriving meanwhile waited behind the statement running and, for each of
 * its own statements, behind the list's next one, and behind every list's next one when several lists were
 * read at once (figures: docs/performance.md, bench/job-list-isolation.bench.ts).
 *
 * So the statements of bulk reads run one at a time, in the order they came, and the next one starts only
 * while no call is in flight: a call waits for at most the one bulk statement already running. So that lists
 * still move under a steady stream of calls, the statement at the head of the line goes anyway once it has
 * waited `maxDeferMs` there. With a store of several connections (PostgreSQL, `maxDeferMs` 0) nothing waits.
 *
 * An interactive request (every one but the bulk reads' own and the portal's event streams:
 * plugins/interactive-first.ts) is in flight from its first hook until its answer is sent or its client has
 * gone.
 */
export class InteractiveFirst {
  private calls = 0;
  private bulkRunning = false;
  private readonly line: Waiting[] = [];
  private deferredCount = 0;

  constructor(private readonly maxDeferMs: number) {}

  /** An interactive request begins; the returned function ends it (again: does nothing). */
  begin(): () => void {
    this.calls++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.calls--;
      this.next();
    };
  }

  /** `db` for a bulk read: each statement takes its turn (`run`). */
  yielding(db: Queryable): Queryable {
    if (this.maxDeferMs <= 0) return db;
    return { query: (sql, params) => this.run(() => db.query(sql, params)) };
  }

  /** Runs one bulk statement in its turn: after the bulk statements before it, and the calls in flight. */
  async run<T>(statement: () => Promise<T>): Promise<T> {
    await new Promise<void>((go) => {
      this.line.push({ go, overdue: false });
      this.next();
    });
    try {
      return await statement();
    } finally {
      this.bulkRunning = false;
      this.next();
    }
  }

  /** Starts the head of the line if it may go now; else makes sure it goes at the latest on its bound. */
  private next(): void {
    const head = this.line[0];
    if (this.bulkRunning || !head) return;
    if (this.calls === 0 || head.overdue) {
      this.line.shift();
      clearTimeout(head.timer);
      this.bulkRunning = true;
      head.go();
      return;
    }
    if (head.timer) return;
    this.deferredCount++;
    head.timer = setTimeout(() => {
      head.overdue = true;
      this.next();
    }, this.maxDeferMs);
  }

  /** Interactive requests in flight. */
  get inFlight(): number {
    return this.calls;
  }

  /** Bulk statements waiting for their turn (for tests). */
  get waiting(): number {
    return this.line.length;
  }

  /** Bulk statements that waited for a call so far (for tests). */
  get deferred(): number {
    return this.deferredCount;
  }
}
