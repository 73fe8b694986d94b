import { describe, expect, it } from "vitest";
import { mayWrite } from "../../src/store/pglite-durability.js";
import { PLAN_EACH_RUN } from "../../src/store/pglite-statements.js";

describe("which statements ask for a WAL flush", () => {
  it("counts anything but a plain SELECT as a write, row locks included", () => {
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
    ])
      expect(mayWrite(sql), sql).toBe(true);
    for (const sql of [
      "SELECT * FROM jobs WHERE id = $1",
      "\n  select count(*) from routers",
      "SELECT 1",
      `${PLAN_EACH_RUN} SELECT * FROM receiver_jobs WHERE ($1::text IS NULL OR router_id = $1)`,
    ])
      expect(mayWrite(sql), sql).toBe(false);
  });
});
