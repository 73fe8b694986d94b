import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureRouter } from "../../../src/service/auth/directory.js";
import type { Database } from "../../../src/service/database/database.js";
import {
  claimNextJob,
  deleteJobTx,
  finishJob,
  INTERRUPTED_ERROR,
  markStarted,
  recoverJobs,
} from "../../../src/service/jobs/lifecycle.js";
import { type JobRow, toJobRecord } from "../../../src/service/jobs/rows.js";
import { postgresAvailability } from "../../helpers/postgres.js";
import { CUSTOMER_A, ROUTER_A, ROUTER_A2, TEAM_A } from "../harness.js";
import { openSeededPostgres, openSeededStore, submitQueued } from "./fixture.js";

const stores: [string, () => Promise<{ db: Database; close(): Promise<void> }>][] = [
  [
    "PGlite",
    async () => {
      const db = await openSeededStore();
      return { db, close: () => db.close() };
    },
  ],
];
if (postgresAvailability().available) stores.push(["PostgreSQL", openSeededPostgres]);

/** Crash recovery at the store level: what a dead instance held goes back to the queue or fails, never twice. */
describe.each(stores)("job store on %s: claims, notifications and crash recovery", (_name, open) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await open());
  });
  afterAll(async () => close?.());

  const submit = (description: string, routerId = ROUTER_A) => submitQueued(db, routerId, description);
  const outboxStatuses = async (jobId: string) =>
    (
      await db.query<{ status: string }>(
        "SELECT payload->>'status' AS status FROM outbox WHERE job_id = $1 ORDER BY seq",
        [jobId],
      )
    ).rows.map((row) => row.status);
  const job = async (jobId: string) =>
    (
      await db.query<{ status: string; execution: string; error: string | null }>(
        "SELECT * FROM jobs WHERE id = $1",
        [jobId],
      )
    ).rows[0];

  it("a router is busy while one of its jobs is claimed; claims follow seq_id", async () => {
    const first = await submit("first");
    await submit("second");
    const dead = randomUUID();
    const claimed = await claimNextJob(db, ROUTER_A, dead, new Date());
    expect(claimed?.job.id).toBe(first.id);
    expect(await claimNextJob(db, ROUTER_A, randomUUID(), new Date())).toBeUndefined();

    // The claiming instance died before starting the script: the job is queued again, still `loaded`.
    expect(await recoverJobs(db, [dead], new Date())).toBe(1);
    expect(await job(first.id)).toMatchObject({ status: "loaded", execution: "queued" });
    const again = await claimNextJob(db, ROUTER_A, randomUUID(), new Date());
    expect(again?.job.id).toBe(first.id);
    // `loaded` was announced once only.
    expect(await outboxStatuses(first.id)).toEqual(["loaded"]);
  });

  it("a job whose script started when its instance died fails and is never run again", async () => {
    const { rows } = await db.query<{ id: string; claimed_by: string }>(
      "SELECT id, claimed_by FROM jobs WHERE execution = 'claimed'",
    );
    const held = rows[0];
    if (!held) throw new Error("expected the claimed job of the previous test");
    expect(await markStarted(db, held.id, held.claimed_by, new Date())).toMatchObject({ status: "running" });
    expect(await recoverJobs(db, [held.claimed_by], new Date())).toBe(1);
    expect(await job(held.id)).toMatchObject({
      status: "failed",
      execution: "done",
      error: INTERRUPTED_ERROR,
    });
    expect(await outboxStatuses(held.id)).toEqual(["loaded", "running", "failed"]);
    // The next job of the router can now be claimed.
    const next = await claimNextJob(db, ROUTER_A, randomUUID(), new Date());
    expect(next?.job.description).toBe("second");
  });

  it("only the instance holding the claim starts a job: not after a delete, not after another instance took it", async () => {
    const first = await submit("deleted before start", ROUTER_A2);
    const mine = randomUUID();
    expect((await claimNextJob(db, ROUTER_A2, mine, new Date()))?.job.id).toBe(first.id);
    await db.transaction((tx) => deleteJobTx(tx, first.id, new Date()));
    expect(await markStarted(db, first.id, mine, new Date())).toBeUndefined();
    expect(await job(first.id)).toMatchObject({ status: "deleted", execution: "done" });

    const second = await submit("taken over", ROUTER_A2);
    expect((await claimNextJob(db, ROUTER_A2, mine, new Date()))?.job.id).toBe(second.id);
    await recoverJobs(db, [mine], new Date());
    const other = randomUUID();
    expect((await claimNextJob(db, ROUTER_A2, other, new Date()))?.job.id).toBe(second.id);
    expect(await markStarted(db, second.id, mine, new Date())).toBeUndefined();
    expect(await markStarted(db, second.id, other, new Date())).toMatchObject({ status: "running" });
    expect(await outboxStatuses(second.id)).toEqual(["loaded", "running"]);
  });

  it("only the claim's holder writes a job's outcome and its router's state (fencing after a freeze)", async () => {
    const frozen = randomUUID();
    const survivor = randomUUID();
    const router = randomUUID();
    await ensureRouter(db, { id: router, teamId: TEAM_A, name: "fenced" });
    const queued = await submit("frozen past the claim timeout", router);
    const claimed = await claimNextJob(db, router, frozen, new Date());
    expect(claimed?.job.id).toBe(queued.id);
    const running = await markStarted(db, queued.id, frozen, new Date());
    const versionBefore = (
      await db.query<{ state_version: number }>("SELECT state_version FROM routers WHERE id = $1", [
        ROUTER_A2,
      ])
    ).rows[0]?.state_version;
    // WHEN the other instance finds the frozen one dead and recovers its job
    expect(await recoverJobs(db, [frozen], new Date())).toBe(1);
    // AND the frozen instance wakes up and finishes the job it ran
    const finished = await finishJob(
      db,
      running as NonNullable<typeof running>,
      { ok: true, snapshot: { changed: "by the frozen instance" } },
      new Date(),
      frozen,
    );
    // THEN nothing of its run is written: the job stays failed (interrupted), the router's state as it was
    expect(finished).toEqual({ fenced: true });
    expect(await job(queued.id)).toMatchObject({
      status: "failed",
      error: INTERRUPTED_ERROR,
      execution: "done",
    });
    expect(
      (
        await db.query<{ state_version: number }>("SELECT state_version FROM routers WHERE id = $1", [
          ROUTER_A2,
        ])
      ).rows[0]?.state_version,
    ).toBe(versionBefore);
    expect(await outboxStatuses(queued.id)).toEqual(["loaded", "running", "failed"]);
    // AND the survivor, had it claimed the job, could not finish it either without the claim
    expect(
      await finishJob(
        db,
        running as NonNullable<typeof running>,
        { ok: true, snapshot: undefined },
        new Date(),
        survivor,
      ),
    ).toEqual({ fenced: true });
  });
  it("each change of a job's life queues its notification in the same statement: the job as its list shows it", async () => {
    const router = randomUUID();
    await ensureRouter(db, { id: router, teamId: TEAM_A, name: "notified" });
    const instance = randomUUID();
    const at = (second: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, second, 123));
    const stateVersion = async () =>
      (await db.query<{ state_version: number }>("SELECT state_version FROM routers WHERE id = $1", [router]))
        .rows[0]?.state_version;
    /** What the notifier sends for the job as it is now: its list item's facts, its ids and the customer's. */
    const expectNotified = async (jobId: string, status: string) => {
      const row = (await db.query<JobRow>("SELECT * FROM jobs WHERE id = $1", [jobId])).rows[0] as JobRow;
      const { id, token, ...facts } = toJobRecord(row);
      const { rows } = await db.query<{ payload: unknown }>(
        "SELECT payload FROM outbox WHERE job_id = $1 ORDER BY seq DESC LIMIT 1",
        [jobId],
      );
      expect(rows[0]?.payload).toEqual({ job_id: id, router_id: router, customer_id: CUSTOMER_A, ...facts });
      expect(facts.status).toBe(status);
    };
    // GIVEN a job whose description JSON must escape
    const queued = await submit('quotes " and \\ backslash, ünïcödé ✓, tab\tnewline\n', router);
    // WHEN it is claimed, started and fails, each a statement
    const claimed = await claimNextJob(db, router, instance, at(1));
    expect(claimed).toMatchObject({
      job: { id: queued.id, status: "loaded" },
      router: { id: router, online: true },
    });
    await expectNotified(queued.id, "loaded");
    const running = await markStarted(db, queued.id, instance, at(2));
    expect(running).toMatchObject({ status: "running", started_at: at(2) });
    await expectNotified(queued.id, "running");
    const before = await stateVersion();
    const saved = await finishJob(
      db,
      running as JobRow,
      { ok: false, error: 'failure: "bad" \\ value', snapshot: { addresses: ["10.0.0.1/24"] } },
      at(3),
      instance,
    );
    // THEN each notification is the job as it then stood, and the router's state was saved with the outcome
    await expectNotified(queued.id, "failed");
    expect(saved).toBe((before as number) + 1);
    expect(await stateVersion()).toBe(saved);
    expect(await outboxStatuses(queued.id)).toEqual(["loaded", "running", "failed"]);
    // AND a job that completes without a state to save leaves the router's state alone
    const second = await submit("no state", router);
    await claimNextJob(db, router, instance, at(4));
    const started = await markStarted(db, second.id, instance, at(5));
    expect(
      await finishJob(db, started as JobRow, { ok: true, snapshot: undefined }, at(6), instance),
    ).toBeUndefined();
    await expectNotified(second.id, "completed");
    expect(await stateVersion()).toBe(saved);
    // AND a job deleted before it ran is notified deleted, with its time
    const third = await submit("deleted", router);
    await db.transaction((tx) => deleteJobTx(tx, third.id, at(7)));
    await expectNotified(third.id, "deleted");
    expect(await outboxStatuses(third.id)).toEqual(["deleted"]);
    // AND a job whose notify_url is unset queues nothing
    const silent = await submitQueued(db, router, "silent", { notifyUrl: null, now: at(8) });
    expect((await claimNextJob(db, router, instance, at(9)))?.job.id).toBe(silent.id);
    expect(await outboxStatuses(silent.id)).toEqual([]);
  });
});
