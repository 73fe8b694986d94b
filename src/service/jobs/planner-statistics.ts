import type { Database } from "../database/database.js";

/**
 * Fresh planner statistics for the embedded store. PostgreSQL's autovacuum re-analyzes a table once it has
 * changed by 50 rows plus 10%; PGlite runs no autovacuum, so its statistics stay those of the empty table it
 * was created as, and the planner then sorts all of a router's jobs to show the first 50 of them, where a
 * table analyzed reads only those 50 from the index (figures: docs/performance.md, bench/portal.bench.ts).
 * The same rule as autovacuum's defaults, counted here for the jobs this process submits; PostgreSQL keeps
 * doing its own.
 */
const ANALYZE_BASE_ROWS = 50;
const ANALYZE_SCALE = 0.1;

interface Counter {
  added: number;
  rowsAtLastAnalyze: number;
  running: boolean;
}

const counters = new WeakMap<Database, Counter>();

/** Counts new job rows and analyzes `jobs` in the background when they pass the threshold (PGlite only). */
export function noteJobsAdded(db: Database, rows = 1): void {
  if (db.kind !== "pglite") return;
  let counter = counters.get(db);
  if (!counter) {
    counter = { added: 0, rowsAtLastAnalyze: 0, running: false };
    counters.set(db, counter);
  }
  counter.added += rows;
  if (counter.running || counter.added < ANALYZE_BASE_ROWS + ANALYZE_SCALE * counter.rowsAtLastAnalyze)
    return;
  void analyzeJobs(db, counter);
}

async function analyzeJobs(db: Database, counter: Counter): Promise<void> {
  counter.running = true;
  counter.added = 0;
  try {
    await db.query("ANALYZE jobs");
    const { rows } = await db.query<{ rows: number }>(
      "SELECT reltuples::bigint::int AS rows FROM pg_class WHERE relname = 'jobs'",
    );
    counter.rowsAtLastAnalyze = Math.max(0, rows[0]?.rows ?? 0);
  } catch {
    // A closed or busy database: the next submissions try again, and stale statistics cost speed, not data.
  } finally {
    counter.running = false;
  }
}
