import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../../src/service/database/database.js";
import { Notifier } from "../../../src/service/notifications/notifier.js";
import { leaseNotifications } from "../../../src/service/notifications/outbox.js";
import { blackHole } from "../../helpers/black-hole.js";
import { HttpsSink } from "../../helpers/https-sink.js";
import { manualClock } from "../../helpers/manual-clock.js";
import { waitFor } from "../../helpers/wait-for.js";
import { LOOPBACK } from "../harness.js";
import { notifyAt, openSeededStore, watched } from "../jobs/fixture.js";

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
