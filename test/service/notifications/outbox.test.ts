import fc from "fast-check";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase, type Queryable } from "../../../src/service/database/database.js";
import { migrate } from "../../../src/service/database/migrations.js";
import { enqueueNotification } from "../../../src/service/jobs/rows.js";
import { DESTINATION_PATTERN, destinationOf } from "../../../src/service/notifications/destination-gate.js";
import {
  leaseNotifications,
  markDelivered,
  markFailed,
  releaseLeases,
} from "../../../src/service/notifications/outbox.js";
import { SERVICE_MIGRATIONS } from "../../../src/service/schema.js";
import { applySeed } from "../../../src/service/seed.js";
import { postgresAvailability } from "../../helpers/postgres.js";
import { eventually, SEED_BEFORE_TEAM_NAMES } from "../harness.js";
import { notifyAt, openSeededPostgres, openSeededStore } from "../jobs/fixture.js";

/** A job's notifications in state order: whether each waits for an earlier one, and whether it is done. */
async function states(db: Queryable, jobId: string) {
  const { rows } = await db.query<{ seq: number; blocked: boolean; done: boolean }>(
    `SELECT seq, blocked, (delivered_at IS NOT NULL OR abandoned_at IS NOT NULL) AS done
     FROM outbox WHERE job_id = $1 ORDER BY seq`,
    [jobId],
  );
  return rows;
}

/** The notification outbox's lease: what a round of the notifier may take, per destination. */
describe("outbox: leasing notifications per destination", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openSeededStore();
  });
  afterAll(async () => db?.close());

  const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
  /** The URLs of leased rows, sorted: a lease's RETURNING has no order. */
  const urls = (rows: readonly { url: string }[]) => rows.map((row) => row.url).sort();
  const clearOutbox = () => db.query("DELETE FROM outbox");

  it("takes no more of a destination than it may, the earliest first, and none of one that may take none", async () => {
    await clearOutbox();
    // GIVEN a closed destination's backlog first, then three destinations' notifications interleaved
    for (let i = 0; i < 20; i++) await notifyAt(db, `https://closed.test/hook?n=${i}`, at(i));
    for (let i = 0; i < 6; i++) {
      await notifyAt(db, `https://a.test:8443/hook/${i}`, at(20 + 3 * i));
      await notifyAt(db, `https://b.test/hook?i=${i}`, at(21 + 3 * i));
      await notifyAt(db, `HTTPS://Other.test#${i}`, at(22 + 3 * i));
    }
    const limits = {
      limit: 10,
      perDestination: new Map([
        ["https://closed.test", 0],
        ["https://a.test:8443", 2],
      ]),
      otherwise: 1,
    };
    // WHEN a round leases
    const { rows: leased } = await leaseNotifications(db, at(100), 10_000, limits);
    // THEN each destination got what it may take, its earliest, though the closed one's rows came first
    expect(urls(leased)).toEqual([
      "HTTPS://Other.test#0",
      "https://a.test:8443/hook/0",
      "https://a.test:8443/hook/1",
      "https://b.test/hook?i=0",
    ]);
    expect(leased.every((row) => row.attempts === 1)).toBe(true);
    // AND a second round does not take what the first holds
    const { rows: again } = await leaseNotifications(db, at(100), 10_000, limits);
    expect(urls(again)).toEqual([
      "HTTPS://Other.test#1",
      "https://a.test:8443/hook/2",
      "https://a.test:8443/hook/3",
      "https://b.test/hook?i=1",
    ]);
    // AND rows given back are leased again, their attempt not counted
    await releaseLeases(
      db,
      leased.map((row) => row.id),
    );
    const { rows: third } = await leaseNotifications(db, at(100), 10_000, { ...limits, limit: 2 });
    expect(third.map((row) => [row.url, row.attempts]).sort()).toEqual([
      ["https://a.test:8443/hook/0", 1],
      ["https://b.test/hook?i=0", 1],
    ]);
  });

  it("stops at the limit in all, the earliest first", async () => {
    await clearOutbox();
    for (let i = 0; i < 8; i++) await notifyAt(db, `https://d${i}.test/hook`, at(i));
    const { rows: leased } = await leaseNotifications(db, at(100), 10_000, {
      limit: 3,
      perDestination: new Map(),
      otherwise: 4,
    });
    expect(urls(leased)).toEqual(["https://d0.test/hook", "https://d1.test/hook", "https://d2.test/hook"]);
  });

  it("names a URL's destination in SQL exactly as the notifier does", async () => {
    const urls = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.string(),
      fc.constantFrom("https://", "x://", "1https://a", "https://a:1?b", "https://[::1]:8443/x", "https:/a"),
    );
    await fc.assert(
      fc.asyncProperty(urls, async (url) => {
        const { rows } = await db.query<{ destination: string }>(
          `SELECT coalesce(substring($1::text from '${DESTINATION_PATTERN}'), $1::text) AS destination`,
          [url],
        );
        expect(rows[0]?.destination).toBe(destinationOf(url));
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a job's later states out of the lease until the earlier one is delivered or abandoned", async () => {
    await clearOutbox();
    // GIVEN a job's three states queued, and another job's first
    const jobId = await notifyAt(db, "https://one.test/hook", at(0));
    await enqueueNotification(db, jobId, at(1));
    await enqueueNotification(db, jobId, at(2));
    await notifyAt(db, "https://two.test/hook", at(3));
    expect(await states(db, jobId)).toEqual([
      { seq: 1, blocked: false, done: false },
      { seq: 2, blocked: true, done: false },
      { seq: 3, blocked: true, done: false },
    ]);
    const lease = () =>
      leaseNotifications(db, at(100), 10_000, { limit: 10, perDestination: new Map(), otherwise: 10 });
    // WHEN a round leases: only each job's first state
    const first = await lease();
    expect(urls(first.rows)).toEqual(["https://one.test/hook", "https://two.test/hook"]);
    expect(first.more).toBe(false);
    // AND the first state is delivered: the second is due (at its own time), the third still waits
    const one = first.rows.find((row) => row.job_id === jobId);
    await markDelivered(db, [one?.id as string], at(101));
    expect((await states(db, jobId)).map((row) => row.blocked)).toEqual([false, false, true]);
    const second = await lease();
    expect(second.rows.map((row) => row.seq)).toEqual([2]);
    // AND the second is abandoned: the third is due
    await markFailed(db, second.rows[0]?.id as string, "HTTP 500", at(102), undefined);
    expect(await states(db, jobId)).toEqual([
      { seq: 1, blocked: false, done: true },
      { seq: 2, blocked: false, done: true },
      { seq: 3, blocked: false, done: false },
    ]);
    // AND a failure that is retried frees nothing, and tells when it is due
    const third = await lease();
    expect(third.rows.map((row) => row.seq)).toEqual([3]);
    await markFailed(db, third.rows[0]?.id as string, "HTTP 500", at(103), at(160));
    const none = await lease();
    expect(none).toEqual({ rows: [], more: false, nextDueAt: at(160) });
  });
});

describe("outbox: migration 7 on an existing store", () => {
  it("marks the later states queued behind an undelivered one as waiting, and frees them as before", async () => {
    const db = await openDatabase({ location: "memory://" });
    try {
      // GIVEN a store of the schema before migration 7: a job with three states undelivered, and one whose first
      // state was delivered and two are left
      expect(await migrate(db, "service", SERVICE_MIGRATIONS.slice(0, 6))).toBe(6);
      await applySeed(db, SEED_BEFORE_TEAM_NAMES as never);
      const waiting = await notifyAt(db, "https://old.test/a");
      const halfway = await notifyAt(db, "https://old.test/b");
      for (const jobId of [waiting, halfway]) {
        await enqueueNotification(db, jobId, new Date());
        await enqueueNotification(db, jobId, new Date());
      }
      await db.query("UPDATE outbox SET delivered_at = now() WHERE job_id = $1 AND seq = 1", [halfway]);
      // WHEN this build's migrations run on it
      expect(await migrate(db, "service", SERVICE_MIGRATIONS)).toBe(SERVICE_MIGRATIONS.length);
      // THEN each job's earliest undelivered state is due and the ones after it wait
      expect((await states(db, waiting)).map((row) => row.blocked)).toEqual([false, true, true]);
      expect((await states(db, halfway)).map((row) => row.blocked)).toEqual([false, false, true]);
      // AND a delivery frees the next one
      const { rows } = await db.query<{ id: string }>("SELECT id FROM outbox WHERE job_id = $1 AND seq = 1", [
        waiting,
      ]);
      await markDelivered(db, [rows[0]?.id as string], new Date());
      expect((await states(db, waiting)).map((row) => row.blocked)).toEqual([false, false, true]);
    } finally {
      await db.close();
    }
  });
});

const postgres = postgresAvailability();

/**
 * On PostgreSQL a state change may queue a job's next notification while another connection marks the earlier
 * one delivered. Whichever comes first, the new one must not be left waiting for a delivery already made: shown
 * with the other connection's transaction held open at the moment that matters.
 */
describe.skipIf(!postgres.available)("outbox on PostgreSQL: a later state queued during a delivery", () => {
  let db: Database;
  let other: pg.Client;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, other, close } = await openSeededPostgres());
  });
  afterAll(async () => close?.());

  const otherTx: Queryable = {
    query: async (sql, params) => ({ rows: (await other.query(sql, params ? [...params] : [])).rows }),
  };
  const waitingForALock = () =>
    eventually(async () => {
      const { rows } = await other.query(
        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      return rows.length > 0 ? true : undefined;
    });

  it("queued while the earlier one is being marked delivered: it waits for the mark, then is due", async () => {
    await db.query("DELETE FROM outbox");
    const jobId = await notifyAt(db, "https://pg.test/a");
    const [first] = (
      await leaseNotifications(db, new Date(), 10_000, { limit: 1, perDestination: new Map(), otherwise: 1 })
    ).rows;
    // GIVEN another connection marking the first state delivered, not yet committed
    await other.query("BEGIN");
    await markDelivered(otherTx, [first?.id as string], new Date());
    // WHEN the job's next state is queued meanwhile
    const queuing = enqueueNotification(db, jobId, new Date());
    await waitingForALock();
    await other.query("COMMIT");
    await queuing;
    // THEN it is due, not waiting for the delivered one
    expect(await states(db, jobId)).toEqual([
      { seq: 1, blocked: false, done: true },
      { seq: 2, blocked: false, done: false },
    ]);
  });

  it("marked delivered while the next one is being queued: the mark waits, then frees it", async () => {
    await db.query("DELETE FROM outbox");
    const jobId = await notifyAt(db, "https://pg.test/b");
    const [first] = (
      await leaseNotifications(db, new Date(), 10_000, { limit: 1, perDestination: new Map(), otherwise: 1 })
    ).rows;
    // GIVEN another connection queuing the job's next state, not yet committed (it waits for the first)
    await other.query("BEGIN");
    await enqueueNotification(otherTx, jobId, new Date());
    // WHEN the first state is marked delivered meanwhile
    const marking = markDelivered(db, [first?.id as string], new Date());
    await waitingForALock();
    await other.query("COMMIT");
    await marking;
    // THEN the next state is due
    expect(await states(db, jobId)).toEqual([
      { seq: 1, blocked: false, done: true },
      { seq: 2, blocked: false, done: false },
    ]);
  });
});
