/**
 * Issue 21, item 2: finishing a job and claiming its router's next job took the same two row locks in opposite
 * orders, and PostgreSQL's deadlock victim lost the router's state. Finishing now locks the router's row first,
 * as a claim does. Shown on PostgreSQL without timing: while another transaction holds the router's row (a claim
 * in progress), a finishing job waits for it and has not yet locked the job's row.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../../src/service/database/database.js";
import { isTransientConflict, retryTransient } from "../../../src/service/database/transient.js";
import { claimNextJob, finishJob, markStarted } from "../../../src/service/jobs/lifecycle.js";
import { postgresAvailability } from "../../helpers/postgres.js";
import { eventually, ROUTER_A } from "../harness.js";
import { openSeededPostgres, submitQueued } from "./fixture.js";

const postgres = postgresAvailability();

describe.skipIf(!postgres.available)("job store on PostgreSQL: one lock order", () => {
  let db: Database;
  let other: pg.Client;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, other, close } = await openSeededPostgres());
  });
  afterAll(async () => close?.());

  it("finishing a job waits for the router's row before it locks the job's row", async () => {
    const instance = randomUUID();
    const submitted = await submitQueued(db, ROUTER_A, "lock order", { notifyUrl: null });
    await claimNextJob(db, ROUTER_A, instance, new Date());
    const running = await markStarted(db, submitted.id, instance, new Date());
    if (!running) throw new Error("not started");

    // GIVEN another transaction holds the router's row, as a claim does
    await other.query("BEGIN");
    await other.query("SELECT id FROM routers WHERE id = $1 FOR UPDATE", [ROUTER_A]);
    // WHEN the job finishes meanwhile
    const finishing = finishJob(db, running, { ok: true, snapshot: { kept: true } }, new Date(), instance);
    await eventually(async () => {
      const { rows } = await other.query(
        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      return rows.length > 0 ? true : undefined;
    });
    // THEN the job's row is still free: the claim could take it without a deadlock
    const job = await other.query("SELECT id FROM jobs WHERE id = $1 FOR UPDATE NOWAIT", [submitted.id]);
    expect(job.rows).toHaveLength(1);
    await other.query("COMMIT");
    // AND the finish goes through with the router's state
    expect(typeof (await finishing)).toBe("number");
    const { rows } = await db.query<{ state: unknown }>("SELECT state FROM routers WHERE id = $1", [
      ROUTER_A,
    ]);
    expect(rows[0]?.state).toEqual({ kept: true });
  });

  it("a deadlock victim runs again instead of failing, and only conflicts are retried", async () => {
    let calls = 0;
    const deadlock = Object.assign(new Error("deadlock detected"), { code: "40P01" });
    expect(
      await retryTransient(async () => {
        calls++;
        if (calls < 3) throw deadlock;
        return "saved";
      }),
    ).toBe("saved");
    expect(calls).toBe(3);
    expect(isTransientConflict(Object.assign(new Error("x"), { code: "23505" }))).toBe(false);
    await expect(
      retryTransient(async () => {
        throw Object.assign(new Error("unique"), { code: "23505" });
      }),
    ).rejects.toThrow("unique");
  });
});
