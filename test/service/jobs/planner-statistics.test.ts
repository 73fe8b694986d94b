/**
 * PGlite runs no autovacuum: without the service analyzing `jobs` as they come, the planner keeps the
 * statistics of the empty table and sorts every job of a router to show the first page of its list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../helpers/wait-for.js";
import { ROUTER_A, ROUTER_A2, startTestService, TEAM_A, type TestService, writeHistory } from "../harness.js";

const HISTORY = 5_000;
const FIRST_PAGE = `EXPLAIN SELECT * FROM jobs
  WHERE router_id = $1 AND ($2::uuid IS NULL OR team_id = $2) AND ($3::int IS NULL OR seq_id < $3)
    AND ($4::text[] IS NULL OR status = ANY($4::text[])) AND ($5::text IS NULL OR strpos(lower(description), $5) > 0)
  ORDER BY seq_id DESC LIMIT $6`;

describe("planner statistics of the embedded store", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000, rateLimit: { count: 10_000, windowMs: 60_000 } });
    await writeHistory(svc.service.app.db, ROUTER_A2, TEAM_A, HISTORY);
  });
  afterAll(async () => svc?.close());

  it("analyzes jobs once enough were submitted, so a router's first page reads its index, not every job", async () => {
    const db = svc.service.app.db;
    for (let index = 0; index < 60; index++) {
      const answer = await svc.submit(ROUTER_A, {
        script: "/log info x",
        description: `job ${index}`,
        make_backup: false,
        express_execute: false,
        needs_acknowledgement: true,
      });
      expect(answer.status).toBe(202);
    }
    // The analysis runs beside the submissions: poll for its result (a condition with a deadline).
    let rows = 0;
    await waitFor(
      async () => {
        const stats = await db.query<{ rows: number }>(
          "SELECT reltuples::bigint::int AS rows FROM pg_class WHERE relname = 'jobs'",
        );
        rows = stats.rows[0]?.rows ?? 0;
        return rows >= HISTORY;
      },
      {
        what: `the planner's statistics to count ${HISTORY} jobs`,
        timeoutMs: 30_000,
        detail: () => `${rows} rows`,
      },
    );
    const plan = (
      await db.query<{ "QUERY PLAN": string }>(FIRST_PAGE, [ROUTER_A2, TEAM_A, null, null, null, 51])
    ).rows
      .map((row) => row["QUERY PLAN"])
      .join("\n");
    expect(plan).toMatch(/Index Scan Backward/);
    expect(plan).not.toMatch(/Sort/);
  });
});
