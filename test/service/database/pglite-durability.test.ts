import { describe, expect, it } from "vitest";
import { mayWrite } from "../../../src/service/database/pglite-durability.js";
import { PLAN_EACH_RUN } from "../../../src/service/database/plan-each-run.js";

describe("which statements ask for a WAL flush", () => {
  it("counts anything but a query that locks nothing as a write", () => {
    for (const sql of [
      "INSERT INTO jobs (id) VALUES ($1)",
      "  update routers SET next_seq = 2",
      "DELETE FROM portal_sessions",
      "WITH moved AS (UPDATE jobs SET status = 'failed' RETURNING id) SELECT id FROM moved",
      "ANALYZE jobs",
      "SELECT * FROM jobs WHERE router_id = $1 ORDER BY seq_id LIMIT 1 FOR UPDATE",
      "select * from jobs for no key update skip locked",
      "SELECT * FROM jobs FOR SHARE",
      "SELECT * FROM jobs FOR KEY SHARE",
      `${PLAN_EACH_RUN} SELECT * FROM jobs FOR UPDATE`,
      "WITH gone AS (DELETE FROM outbox RETURNING id) SELECT count(*) FROM gone",
      "with r as (select 1) insert into jobs (id) select * from r",
      "WITH head AS (SELECT id FROM jobs LIMIT 1 FOR UPDATE) SELECT * FROM head",
      "WITH x AS (MERGE INTO jobs j USING src s ON s.id = j.id WHEN MATCHED THEN DO NOTHING) SELECT 1",
      "SELECT id FROM jobs WHERE status = 'update'",
    ])
      expect(mayWrite(sql), sql).toBe(true);
    for (const sql of [
      "SELECT * FROM jobs WHERE id = $1",
      "\n  select count(*) from routers",
      "SELECT 1",
      `${PLAN_EACH_RUN} SELECT * FROM receiver_jobs WHERE ($1::text IS NULL OR router_id = $1)`,
      `${PLAN_EACH_RUN} WITH page AS (SELECT id, updated_at FROM jobs WHERE status = 'deleted') SELECT * FROM page`,
      "with recursive n(i) as (select 1 union all select i + 1 from n where i < 3) select * from n",
    ])
      expect(mayWrite(sql), sql).toBe(false);
  });
});
