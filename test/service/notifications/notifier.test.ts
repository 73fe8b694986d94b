import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../../src/service/database/database.js";
import { enqueueNotification } from "../../../src/service/jobs/rows.js";
import { Notifier } from "../../../src/service/notifications/notifier.js";
import { leaseNotifications } from "../../../src/service/notifications/outbox.js";
import { blackHole, refusingPort } from "../../helpers/black-hole.js";
import { HttpsSink } from "../../helpers/https-sink.js";
import { manualClock } from "../../helpers/manual-clock.js";
import { waitFor } from "../../helpers/wait-for.js";
import { LOOPBACK, ROUTER_B, TEAM_B } from "../harness.js";
import { notifyAt, openSeededStore, rowsRead, watched } from "../jobs/fixture.js";

/** What the notifier's rounds cost the database, on a real store and a real HTTPS receiver. */
describe("notifier: a backlog for one receiver", () => {
  let db: Database;
  let sink: HttpsSink;
  beforeAll(async () => {
    db = await openSeededStore();
    sink = await HttpsSink.start();
  });
  afterAll(async () => {
    await db?.close();
    await sink?.close();
  });

  const config = (ca: string, notifyTimeoutMs = 10_000) => ({
    notifyCa: ca,
    notifyRetryBaseMs: 50,
    notifyRetryMaxMs: 1000,
    notifyGiveUpMs: 60_000,
    notifyTimeoutMs,
    notifyConcurrency: 16,
    notifyAllow: LOOPBACK,
  });

  it("delivers each once, several per lease, without leasing rows only to give them back", async () => {
    // GIVEN 40 notifications due for one receiver, which takes four deliveries at a time
    const count = 40;
    for (let i = 0; i < count; i++) await notifyAt(db, `${sink.url}/hook/${i}`);
    // The store itself, its statements counted on the way (leases that took rows, and leases given back).
    let leases = 0;
    let givenBack = 0;
    const counted = watched(db, (sql, _params, rows) => {
      if (sql.includes("attempts = attempts + 1") && rows.some((row) => (row as { id?: string }).id))
        leases++;
      if (sql.includes("attempts = attempts - 1")) givenBack++;
    });
    const notifier = new Notifier(counted, config(sink.ca));
    // WHEN the notifier works through them
    await notifier.start();
    try {
      await sink.waitFor((received) => received.length >= count);
    } finally {
      await notifier.close();
    }
    // THEN each arrived once, and was recorded as delivered
    expect(new Set(sink.received.map((item) => item.path)).size).toBe(count);
    expect(sink.received).toHaveLength(count);
    const { rows } = await db.query<{ undelivered: number }>(
      "SELECT count(*)::int AS undelivered FROM outbox WHERE delivered_at IS NULL",
    );
    expect(rows[0]?.undelivered).toBe(0);
    // AND a lease served several deliveries (four slots and as many again waiting for them: at least five a
    // round), and none was leased only to be given back
    expect(leases).toBeLessThanOrEqual(Math.ceil(count / 5));
    expect(givenBack).toBe(0);
  });

  it("gives back on close the rows it leased ahead, so that the next start sends them at once", async () => {
    await db.query("DELETE FROM outbox");
    const hole = await blackHole();
    try {
      // GIVEN a receiver that never answers, with four deliveries in flight and more leased to follow them
      for (let i = 0; i < 12; i++) await notifyAt(db, `https://127.0.0.1:${hole.port}/hook/${i}`);
      const notifier = new Notifier(db, config(sink.ca, 600_000));
      await notifier.start();
      await waitFor(() => hole.accepted() === 4, { what: "four deliveries in flight" });
      const leased = await db.query<{ leased: number }>(
        "SELECT count(*)::int AS leased FROM outbox WHERE locked_until IS NOT NULL",
      );
      expect(leased.rows[0]?.leased).toBeGreaterThan(4);
      // WHEN the notifier closes (the receiver going away ends the deliveries in flight)
      const closing = notifier.close();
      await new Promise((resolve) => hole.server.close(resolve));
      await closing;
      // THEN no row is left leased, and only the four attempts made are counted
      const { rows } = await db.query<{ attempts: number; leased: boolean }>(
        "SELECT attempts, locked_until IS NOT NULL AS leased FROM outbox ORDER BY attempts",
      );
      expect(rows.filter((row) => row.leased)).toEqual([]);
      expect(rows.map((row) => row.attempts)).toEqual([...Array(8).fill(0), ...Array(4).fill(1)]);
    } finally {
      hole.server.close();
    }
  });

  it("gives back the rows it leased ahead that could no longer start within their lease", async () => {
    await db.query("DELETE FROM outbox");
    const hole = await blackHole();
    // Ahead of the notifications' times (taken from the real clock), so that they are due on it.
    const clock = manualClock(new Date(Date.now() + 60_000));
    let givenBack: unknown[] = [];
    const observed = watched(db, (sql, params) => {
      if (sql.includes("attempts = attempts - 1"))
        givenBack = [...givenBack, ...((params?.[0] ?? []) as unknown[])];
    });
    const notifier = new Notifier(observed, config(sink.ca, 600_000), () => {}, clock.nowMs);
    try {
      // GIVEN four deliveries in flight to a receiver that never answers, and eight more leased to follow them
      for (let i = 0; i < 12; i++) await notifyAt(db, `https://127.0.0.1:${hole.port}/hook/${i}`);
      await notifier.start();
      await waitFor(() => hole.accepted() === 4, { what: "four deliveries in flight" });
      const leasedAhead = await db.query<{ id: string }>(
        "SELECT id FROM outbox WHERE locked_until IS NOT NULL AND attempts = 1",
      );
      expect(leasedAhead.rows).toHaveLength(12);
      // WHEN they have waited so long that a delivery started now could outlast the lease (600 s timeout and
      // 5 s more: after 4 s)
      clock.advance(4_001);
      notifier.wake();
      // THEN the eight not started are given back (their attempt not counted), and leased again afresh
      await waitFor(() => givenBack.length === 8, { what: "the eight waiting rows given back" });
      expect(hole.accepted()).toBe(4);
      await waitFor(
        async () =>
          (
            await db.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM outbox WHERE locked_until = $1 AND attempts = 1",
              [new Date(clock.nowMs() + 605_000)],
            )
          ).rows[0]?.n === 8,
        { what: "the eight leased again on the clock's new time" },
      );
    } finally {
      const closing = notifier.close();
      await new Promise((resolve) => hole.server.close(resolve));
      await closing;
    }
  });

  it("after a crash, a process alone on its store sends at once what the dead one had leased", async () => {
    await db.query("DELETE FROM outbox");
    // GIVEN notifications a process leased (in flight, or leased ahead) before it was killed: 605 s leases
    for (let i = 0; i < 3; i++) await notifyAt(db, `${sink.url}/crash/${i}`);
    const { rows: leased } = await leaseNotifications(db, new Date(), 605_000, {
      limit: 16,
      perDestination: new Map(),
      otherwise: 12,
    });
    expect(leased).toHaveLength(3);
    // WHEN the next process starts on the store, the only one on it (PGlite)
    const notifier = new Notifier(db, config(sink.ca, 600_000));
    try {
      await notifier.start({ exclusive: true });
      // THEN they are delivered now, not after their leases
      await sink.waitFor(
        (received) => received.filter((item) => item.path.startsWith("/crash/")).length === 3,
      );
    } finally {
      await notifier.close();
    }
  });
});

/** A job's three notifications as a job run by its router queues them: loaded, running, completed. */
async function queueJobStates(db: Database, url: string, at: Date): Promise<string> {
  const jobId = await notifyAt(db, url, at);
  await enqueueNotification(db, jobId, at);
  await enqueueNotification(db, jobId, at);
  return jobId;
}

/** An outbox statement the notifier sent, and what it answered once it has. */
interface Statement {
  readonly kind: "lease" | "failed" | "other";
  readonly sql: string;
  readonly params: readonly unknown[] | undefined;
  rows?: readonly unknown[];
}

/** The store as the notifier uses it, each statement recorded in the order sent. */
function recorded(db: Database) {
  const statements: Statement[] = [];
  const kind = (sql: string) =>
    sql.includes("attempts = attempts + 1") ? "lease" : sql.includes("last_error = $2") ? "failed" : "other";
  const store: Database = {
    kind: db.kind,
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
    query: async (sql, params) => {
      const statement: Statement = { kind: kind(sql), sql, params };
      statements.push(statement);
      const result = await db.query(sql, params);
      statement.rows = result.rows;
      return result as never;
    },
  };
  /** Statements of `what` answered so far. */
  const answered = (what: Statement["kind"]) => statements.filter((s) => s.kind === what && s.rows).length;
  /** Leases that took rows (a lease answers one row of its summary when it took none). */
  const leasesThatTook = () =>
    statements.filter((s) => s.kind === "lease" && s.rows?.some((row) => (row as { id?: string }).id)).length;
  return { store, statements, answered, leasesThatTook };
}

/**
 * Issue 45, item 2: a receiver that is down (refusing, or answering 5xx) cost the store for every tenant. Each
 * failure woke a round at once, the notifier read the outbox every 20-250 ms whatever was due, and each round
 * walked every later state of every job waiting for its first: 1,200 such jobs kept the store's thread busy.
 * Measured here by what the store does, on a clock the test moves.
 */
describe("notifier: a destination that fails at once (issue 45, item 2)", () => {
  let db: Database;
  let sink: HttpsSink;
  beforeAll(async () => {
    db = await openSeededStore();
    sink = await HttpsSink.start();
    sink.failNext(Number.POSITIVE_INFINITY);
  });
  afterAll(async () => {
    await db?.close();
    await sink?.close();
  });

  const config = (notifyRetryBaseMs: number, notifyRetryMaxMs: number) => ({
    notifyCa: sink.ca,
    notifyRetryBaseMs,
    notifyRetryMaxMs,
    notifyGiveUpMs: 24 * 3_600_000,
    notifyTimeoutMs: 10_000,
    notifyConcurrency: 16,
    notifyAllow: LOOPBACK,
  });
  /** The back-off drawn at its middle: each retry waits half its ceiling, so the test knows when. */
  const middle = () => 0.5;

  it("reschedules a failed delivery with its back-off and wakes nothing until it is due", async () => {
    await db.query("DELETE FROM outbox");
    const clock = manualClock();
    const down = `${sink.url}/down`;
    // GIVEN a job's three notifications for a receiver answering 503: only the first may go before it is heard
    const jobId = await queueJobStates(db, down, new Date(clock.nowMs() - 1000));
    const seen = recorded(db);
    const notifier = new Notifier(seen.store, config(60_000, 600_000), () => {}, clock.nowMs, {
      after: clock.after,
      random: middle,
    });
    try {
      // WHEN the notifier tries it, and it fails
      await notifier.start();
      await waitFor(() => seen.answered("failed") === 1, { what: "the first attempt failed" });
      expect(sink.attempts.filter((attempt) => attempt.path === "/down")).toHaveLength(1);
      // THEN it is due again after its back-off: half the base, on the notifier's clock
      const { rows } = await db.query<{ seq: number; attempts: number; next_attempt_at: Date }>(
        "SELECT seq, attempts, next_attempt_at FROM outbox WHERE job_id = $1 ORDER BY seq",
        [jobId],
      );
      expect(rows[0]).toMatchObject({ seq: 1, attempts: 1 });
      expect(rows[0]?.next_attempt_at.getTime()).toBe(clock.nowMs() + 30_000);
      // AND the failure woke no round: the next read of the outbox is the one a new notification asks for, and
      // it finds that notification
      const failedAt = seen.statements.findIndex((statement) => statement.kind === "failed");
      await notifyAt(db, `${sink.url}/other`, clock.now(), { teamId: TEAM_B, routerId: ROUTER_B });
      notifier.queued(`${sink.url}/other`);
      await waitFor(() => sink.attempts.some((attempt) => attempt.path === "/other"), {
        what: "the new notification tried",
      });
      const nextLease = seen.statements.slice(failedAt + 1).find((statement) => statement.kind === "lease");
      expect(nextLease?.rows?.map((row) => (row as { url: string }).url)).toEqual([`${sink.url}/other`]);
      // AND once its back-off has passed on the clock, it is tried again
      clock.advance(30_000);
      await waitFor(() => sink.attempts.filter((attempt) => attempt.path === "/down").length === 2, {
        what: "the retry once due",
      });
    } finally {
      await notifier.close();
    }
  });

  it("reads no more of the outbox in a round for more notifications waiting in back-off", async () => {
    await db.query("DELETE FROM outbox");
    const clock = manualClock();
    const down = `https://127.0.0.1:${await refusingPort()}/down`;
    // GIVEN 40 jobs' notifications for a receiver that is down, each job's first tried once and refused
    for (let i = 0; i < 40; i++) await queueJobStates(db, down, new Date(clock.nowMs() - 1000));
    const seen = recorded(db);
    const notifier = new Notifier(seen.store, config(60_000, 600_000), () => {}, clock.nowMs, {
      after: clock.after,
      random: middle,
    });
    /** What a round costs the store now that nothing is due: the rows of the outbox its statements read. */
    const roundCost = async () => {
      const before = seen.statements.length;
      notifier.wake();
      await waitFor(
        () => seen.statements.length > before && seen.statements.every((statement) => statement.rows),
        { what: "a round" },
      );
      let read = 0;
      for (const { sql, params } of seen.statements.slice(before))
        read += await rowsRead(db, "outbox", sql, params);
      return read;
    };
    try {
      await notifier.start();
      await waitFor(() => seen.answered("failed") === 40, { what: "every first attempt failed" });
      const costWith40 = await roundCost();
      // WHEN 160 more jobs wait the same way (their first attempt made, its retry not due)
      for (let i = 0; i < 160; i++) await queueJobStates(db, down, new Date(clock.nowMs() - 1000));
      await db.query(
        "UPDATE outbox SET attempts = 1, next_attempt_at = $1 WHERE seq = 1 AND attempts = 0 AND url = $2",
        [new Date(clock.nowMs() + 30_000), down],
      );
      const costWith200 = await roundCost();
      // THEN a round reads as much of the outbox as before, and no more than a few rows
      expect(costWith200).toBe(costWith40);
      expect(costWith200).toBeLessThanOrEqual(2);
    } finally {
      await notifier.close();
    }
  });

  it("sends a failing receiver the back-off's attempts, and leases a wave of retries in a few rounds", async () => {
    await db.query("DELETE FROM outbox");
    const clock = manualClock();
    const path = "/pace";
    const attempts = () => sink.attempts.filter((attempt) => attempt.path === path).length;
    // GIVEN 24 jobs' notifications for a receiver answering 503; retries wait half of 1 s, 2 s, then 4 s at most
    const jobs = 24;
    for (let i = 0; i < jobs; i++)
      await queueJobStates(db, `${sink.url}${path}`, new Date(clock.nowMs() - 1000));
    const seen = recorded(db);
    const notifier = new Notifier(seen.store, config(1000, 4000), () => {}, clock.nowMs, {
      after: clock.after,
      random: middle,
    });
    try {
      // WHEN ten seconds pass on the clock, moved to each time a retry is due
      await notifier.start();
      // Each failure recorded too: one recorded after the clock moves would be due a wave later (CI, Node 24).
      await waitFor(() => attempts() === jobs && seen.answered("failed") === jobs, {
        what: "the first attempts",
      });
      const waves = [500, 1000, 2000, 2000, 2000, 2000];
      for (const [index, wait] of waves.entries()) {
        const leasesBefore = seen.leasesThatTook();
        clock.advance(wait);
        await waitFor(
          () => attempts() === jobs * (index + 2) && seen.answered("failed") === jobs * (index + 2),
          {
            what: `retry wave ${index + 1}`,
            detail: () => `${attempts()} attempts`,
          },
        );
        // THEN each wave is every job's first notification once, leased several at a time (four slots of the
        // destination and eight more to follow them, leased again once fewer than four wait: five a round)
        expect(seen.leasesThatTook() - leasesBefore).toBeLessThanOrEqual(Math.ceil(jobs / 5));
      }
      // AND at 9.5 s each has been tried 7 times (at 0, 0.5, 1.5, 3.5, 5.5, 7.5 and 9.5 s), the later states never
      clock.advance(1999);
      const { rows } = await db.query<{ seq: number; attempts: number }>(
        "SELECT seq, attempts FROM outbox WHERE url = $1 GROUP BY seq, attempts ORDER BY seq",
        [`${sink.url}${path}`],
      );
      expect(rows).toEqual([
        { seq: 1, attempts: 7 },
        { seq: 2, attempts: 0 },
        { seq: 3, attempts: 0 },
      ]);
    } finally {
      await notifier.close();
    }
    expect(attempts()).toBe(7 * jobs);
  });
});

/**
 * Issue 45, item 6: the gate holds one destination to 4 slots, but a team with receivers that never answer on
 * 40 ports took all 16, and another team heard its notification only once one of them timed out.
 */
describe("notifier: one team's black holes on many ports (issue 45, item 6)", () => {
  let db: Database;
  let sink: HttpsSink;
  const holes: Awaited<ReturnType<typeof blackHole>>[] = [];
  beforeAll(async () => {
    db = await openSeededStore();
    sink = await HttpsSink.start();
    for (let i = 0; i < 40; i++) holes.push(await blackHole());
  });
  afterAll(async () => {
    await db?.close();
    await sink?.close();
  });
  const accepted = () => holes.reduce((sum, hole) => sum + hole.accepted(), 0);
  const ended = () => holes.reduce((sum, hole) => sum + hole.ended(), 0);

  it("leaves another team's notifications a slot: one team holds at most three quarters of them", async () => {
    const clock = manualClock();
    // GIVEN team A's notifications for 40 receivers that never answer, two each: more than all 16 slots
    for (const hole of holes) {
      for (let i = 0; i < 2; i++)
        await notifyAt(db, `https://127.0.0.1:${hole.port}/hook/${i}`, new Date(clock.nowMs() - 1000));
    }
    // The notifier's timers on a clock the test does not move: whatever it defers to a timer waits for good.
    const notifier = new Notifier(
      db,
      {
        notifyCa: sink.ca,
        notifyRetryBaseMs: 50,
        notifyRetryMaxMs: 1000,
        notifyGiveUpMs: 60 * 60_000,
        // Longer than the test can take: every attempt a black hole got is still held when the test looks.
        notifyTimeoutMs: 600_000,
        notifyConcurrency: 16,
        notifyAllow: LOOPBACK,
      },
      () => {},
      clock.nowMs,
      { after: clock.after, random: () => 0.5 },
    );
    try {
      await notifier.start();
      await waitFor(() => accepted() >= 12, { what: "team A's deliveries in flight" });
      // WHEN team B's job queues its three states for its own receiver
      const url = `${sink.url}/team-b`;
      const jobId = await notifyAt(db, url, clock.now(), { teamId: TEAM_B, routerId: ROUTER_B });
      await enqueueNotification(db, jobId, clock.now());
      await enqueueNotification(db, jobId, clock.now());
      notifier.queued(url);
      // THEN each arrives after the one before, none waiting for a timer, while the black holes still hold every
      // attempt they got: 12 of the 16 slots
      await sink.waitFor((received) => received.filter((item) => item.path === "/team-b").length === 3);
      expect(ended()).toBe(0);
      expect(accepted()).toBe(12);
    } finally {
      // The black holes first: their attempts then fail at once, and the close does not wait them out.
      for (const hole of holes) await new Promise((resolve) => hole.server.close(resolve));
      await notifier.close();
    }
  });
});

describe("notifier: a black hole whose circuit opens", () => {
  let db: Database;
  let hole: Awaited<ReturnType<typeof blackHole>>;
  beforeAll(async () => {
    db = await openSeededStore();
    hole = await blackHole();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("moves the notifications it cannot take yet to when it half-opens, out of every round's way", async () => {
    const clock = manualClock();
    const url = `https://127.0.0.1:${hole.port}/hook`;
    // GIVEN 30 notifications for a receiver that never answers: more than its slots and those leased ahead
    for (let i = 0; i < 30; i++) await notifyAt(db, url, new Date(clock.nowMs() - 1000));
    const seen = recorded(db);
    const notifier = new Notifier(
      seen.store,
      {
        notifyRetryBaseMs: 60_000,
        notifyRetryMaxMs: 600_000,
        notifyGiveUpMs: 24 * 3_600_000,
        notifyTimeoutMs: 200,
        notifyConcurrency: 16,
        notifyAllow: LOOPBACK,
      },
      () => {},
      clock.nowMs,
      { after: clock.after, random: () => 0.5 },
    );
    const deferred = () =>
      seen.statements.some(
        (statement) => statement.sql.includes("SET next_attempt_at = $2") && statement.rows,
      );
    try {
      // WHEN five attempts in a row time out, and its circuit opens
      await notifier.start();
      await waitFor(deferred, { what: "the open circuit's notifications moved" });
      // THEN none of those never tried is due before the circuit half-opens
      const { rows } = await db.query<{ due: number; waiting: number }>(
        `SELECT count(*) FILTER (WHERE next_attempt_at <= $1)::int AS due, count(*)::int AS waiting
         FROM outbox WHERE attempts = 0`,
        [clock.now()],
      );
      expect(rows[0]?.waiting).toBeGreaterThan(0);
      expect(rows[0]?.due).toBe(0);
      expect(seen.answered("failed")).toBeGreaterThanOrEqual(5);
    } finally {
      await new Promise((resolve) => hole.server.close(resolve));
      await notifier.close();
    }
  });
});
