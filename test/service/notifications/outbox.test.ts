import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../../src/service/database/database.js";
import { DESTINATION_PATTERN, destinationOf } from "../../../src/service/notifications/destination-gate.js";
import { leaseNotifications, releaseLeases } from "../../../src/service/notifications/outbox.js";
import { notifyAt, openSeededStore } from "../jobs/fixture.js";

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
    const leased = await leaseNotifications(db, at(100), 10_000, limits);
    // THEN each destination got what it may take, its earliest, though the closed one's rows came first
    expect(urls(leased)).toEqual([
      "HTTPS://Other.test#0",
      "https://a.test:8443/hook/0",
      "https://a.test:8443/hook/1",
      "https://b.test/hook?i=0",
    ]);
    expect(leased.every((row) => row.attempts === 1)).toBe(true);
    // AND a second round does not take what the first holds
    const again = await leaseNotifications(db, at(100), 10_000, limits);
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
    const third = await leaseNotifications(db, at(100), 10_000, { ...limits, limit: 2 });
    expect(third.map((row) => [row.url, row.attempts]).sort()).toEqual([
      ["https://a.test:8443/hook/0", 1],
      ["https://b.test/hook?i=0", 1],
    ]);
  });

  it("stops at the limit in all, the earliest first", async () => {
    await clearOutbox();
    for (let i = 0; i < 8; i++) await notifyAt(db, `https://d${i}.test/hook`, at(i));
    const leased = await leaseNotifications(db, at(100), 10_000, {
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
});
