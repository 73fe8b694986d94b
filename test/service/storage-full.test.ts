/**
 * Issue 21, item 9: a full disk answered 500 while `/healthz` stayed 200. Now a write refused for lack of space
 * answers 503 with Retry-After (the client retries; nothing was acknowledged), `/healthz` says why, and every
 * submission that was acknowledged is still there once space is back. The disk is a real tmpfs, filled for real.
 */
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { createApp } from "../../src/service/app.js";
import { resolveConfig } from "../../src/service/config.js";
import { type Database, openDatabase } from "../../src/service/database/database.js";
import { applySeed } from "../../src/service/seed.js";
import { mountSmallDisk, type SmallDisk, smallDiskAvailability } from "../helpers/small-disk.js";
import {
  ADMIN_TOKEN,
  eventually,
  LOOPBACK,
  type Loose,
  ROUTER_A,
  SEED,
  startTestService,
  TEAM_A,
  type TestService,
  TOKEN_A,
} from "./harness.js";

const disk = smallDiskAvailability();

/** A service whose data directory is a real tmpfs of `mebibytes`; its scheduler waits for the test. */
async function serviceOnSmallDisk(mebibytes: number): Promise<{ small: SmallDisk; service: TestService }> {
  const small = mountSmallDisk(mebibytes);
  const service = await startTestService({
    database: join(small.path, "pglite"),
    dataDir: small.path,
    rateLimit: { count: 100_000, windowMs: 60_000 },
    // The scheduler would run the jobs (and write) behind the test's back: it waits for the test.
    tickMs: 3_600_000,
  });
  return { small, service };
}

async function stopOnSmallDisk(
  small: SmallDisk | undefined,
  service: TestService | undefined,
): Promise<void> {
  await service?.close();
  small?.free();
  small?.unmount();
}

describe.skipIf(!disk.available)("a service whose disk fills up", () => {
  let small: SmallDisk;
  let service: TestService;
  beforeAll(async () => {
    ({ small, service } = await serviceOnSmallDisk(64));
  });
  afterAll(async () => stopOnSmallDisk(small, service));

  const job = (n: number) => ({ description: `job ${n}`, script: `/log info "${"x".repeat(1800)}"` });

  it("answers 503 with Retry-After, reports it at /healthz, and loses nothing it acknowledged", async () => {
    expect((await service.submit(ROUTER_A, job(0))).status).toBe(202);
    let acknowledged = 1;

    // WHEN the disk fills up
    small.fill();
    let refused: Awaited<ReturnType<TestService["submit"]>> | undefined;
    const statuses = new Set<number>();
    for (let n = 1; n <= 2_000 && refused === undefined; n++) {
      const answer = await service.submit(ROUTER_A, job(n));
      statuses.add(answer.status);
      if (answer.status === 202) acknowledged++;
      else refused = answer;
    }

    // THEN a submission is refused as "come back later", never as an internal error
    expect(refused?.status).toBe(503);
    expect([...statuses].sort()).toEqual([202, 503]);
    expect(refused?.headers["retry-after"]).toBe("30");
    expect(refused?.body.error).toMatchObject({
      code: "service_unavailable",
      message: expect.stringMatching(/storage is full.*nothing of this request was stored/),
    });
    // AND /healthz says so, without naming a file of the data directory
    const health = await service.call("GET", "/healthz", { token: null });
    expect(health.status).toBe(503);
    expect(health.body.error.message).toMatch(/storage is full/);
    expect(health.body.error.message).not.toContain(small.path);

    // WHEN space comes back
    small.free();
    // THEN the next submission is accepted and every acknowledged job is listed (/healthz reports the full
    // disk for 30 s after the last refusal: test/service/database/storage-full.test.ts)
    expect((await service.submit(ROUTER_A, job(-1))).status).toBe(202);
    acknowledged++;
    const listed = await service.jobs(ROUTER_A);
    expect(listed).toHaveLength(acknowledged);
  });
});

/** PostgreSQL's error for a file it cannot extend (SQLSTATE 53100), raised by the store itself. */
const RAISE_DISK_FULL =
  "DO $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$";

/**
 * The store as the service sees it, on a disk that fills up the moment after the statement whose first row
 * `fillAfter` picks commits: from then on every statement that writes is refused with the store's own disk_full
 * error until `full` is cleared (space is back), and reads go on, as on a full disk. The instant matters, so
 * the disk is not a tmpfs filled from outside: that cannot land between two statements of one job.
 */
function diskFullAfter(db: Database) {
  const disk: { fillAfter: ((row: Record<string, unknown>) => boolean) | undefined; full: boolean } = {
    fillAfter: undefined,
    full: false,
  };
  const refuseWhileFull = async (sql?: string) => {
    if (disk.full && (sql === undefined || !/^\s*SELECT\b/i.test(sql))) await db.query(RAISE_DISK_FULL);
  };
  const wrapped: Database = {
    ...db,
    query: async <Row extends object>(sql: string, params?: readonly unknown[]) => {
      await refuseWhileFull(sql);
      const result = await db.query<Row>(sql, params);
      const row = result.rows[0] as Record<string, unknown> | undefined;
      if (row && disk.fillAfter?.(row)) {
        disk.fillAfter = undefined;
        disk.full = true;
      }
      return result;
    },
    transaction: async (fn) => {
      await refuseWhileFull();
      return db.transaction(fn);
    },
  };
  return { db: wrapped, disk };
}

/** A claim's row: the job with its router's name, online flag and state version (`claimNextJob`). */
const isClaim = (row: Record<string, unknown>) => "router_state_version" in row;
/** A start's row: the job now running (`markStarted`). */
const isStart = (row: Record<string, unknown>) => row.execution === "started" && row.status === "running";

/**
 * Issue 45, finding 4: after a disk-full episode a router's queue stayed stuck until a restart: the claim of a
 * job whose start the full disk refused was left behind (the job `loaded`, the queue behind it pending). Now the
 * claim is given back once the store takes writes again, and the queue moves on by itself.
 */
describe("a job whose start or outcome a full disk refused", () => {
  let db: Database;
  let disk: ReturnType<typeof diskFullAfter>["disk"];
  let app: FastifyInstance;

  beforeAll(async () => {
    db = await openDatabase({ location: "memory://" });
    const store = diskFullAfter(db);
    disk = store.disk;
    app = await createApp({
      config: resolveConfig({
        database: "memory://",
        // The test drives the scheduler's ticks, so that it knows when the scheduler has looked again.
        tickMs: 3_600_000,
        adminToken: ADMIN_TOKEN,
        rateLimit: { count: 10_000, windowMs: 1000 },
        notifyAllow: LOOPBACK,
      }),
      backend: new SimulatedBackend({ seed: 7 }),
      db: store.db,
    });
    await app.ready();
    await applySeed(app.db, SEED as never);
  });
  afterAll(async () => {
    disk.full = false;
    await app?.close();
    await db?.close();
  });

  const submit = async (n: number | string) => {
    const answer = await app.inject({
      method: "POST",
      url: `/api/asynchronous/${ROUTER_A}`,
      headers: { authorization: `Bearer ${TOKEN_A}` },
      payload: { description: `job ${n}`, script: `:put ${n}` },
    });
    expect(answer.statusCode).toBe(202);
  };
  /** The statuses of the router's open jobs and of those that ended since the test began, in seq order. */
  let firstSeq = 0;
  const statuses = async () =>
    (
      await db.query<{ status: string; execution: string }>(
        "SELECT status, execution FROM jobs WHERE router_id = $1 AND team_id = $2 AND seq_id >= $3 ORDER BY seq_id",
        [ROUTER_A, TEAM_A, firstSeq],
      )
    ).rows.map((row) => `${row.status}/${row.execution}`);
  beforeEach(async () => {
    const { rows } = await db.query<{ next_seq: number }>("SELECT next_seq FROM routers WHERE id = $1", [
      ROUTER_A,
    ]);
    firstSeq = rows[0]?.next_seq ?? 0;
  });
  /** One tick of the scheduler, and the pass over the router's queue that it started, to its end. */
  const tickAndPass = async () => {
    const passes = app.scheduler.queuePasses(ROUTER_A);
    await app.scheduler.tick();
    await eventually(async () => (app.scheduler.queuePasses(ROUTER_A) > passes ? true : undefined));
  };

  it("gives its claim back once space is back, and the router's queue moves on without a restart", async () => {
    // GIVEN three jobs queued on one router
    for (const n of [1, 2, 3]) await submit(n);
    // WHEN the disk fills up between the claim of the first and its start
    disk.fillAfter = isClaim;
    await tickAndPass();
    expect(disk.full).toBe(true);
    expect(await statuses()).toEqual(["loaded/claimed", "pending/queued", "pending/queued"]);
    // ... and stays full for another tick: nothing runs, nothing is lost
    await tickAndPass();
    expect(await statuses()).toEqual(["loaded/claimed", "pending/queued", "pending/queued"]);
    // WHEN space comes back
    disk.full = false;
    // THEN the scheduler's next tick gives the claim back and runs the queue, in order
    await tickAndPass();
    expect(await statuses()).toEqual(["completed/done", "completed/done", "completed/done"]);
    const { rows } = await db.query<{ description: string }>(
      "SELECT description FROM jobs WHERE router_id = $1 AND seq_id >= $2 ORDER BY started_at",
      [ROUTER_A, firstSeq],
    );
    expect(rows.map((row) => row.description)).toEqual(["job 1", "job 2", "job 3"]);
  });

  it("writes a job's outcome once space is back, and the router's queue moves on without a restart", async () => {
    // GIVEN two jobs queued on one router
    for (const n of [4, 5]) await submit(n);
    // WHEN the disk fills up while the first one's script runs (its start committed)
    disk.fillAfter = isStart;
    const passes = app.scheduler.queuePasses(ROUTER_A);
    await app.scheduler.tick();
    await eventually(async () => (disk.full ? true : undefined));
    // THEN it stays running, its outcome not written yet, and the next job waits for it
    expect(await statuses()).toEqual(["running/started", "pending/queued"]);
    // WHEN space comes back
    disk.full = false;
    // THEN the same pass writes the outcome and runs the next job
    await eventually(async () => (app.scheduler.queuePasses(ROUTER_A) > passes ? true : undefined));
    expect(await statuses()).toEqual(["completed/done", "completed/done"]);
  });
});

/**
 * The disk filling while the WAL was written hung the service for good (PostgreSQL
 * PANICs when it cannot write the WAL; PGlite's instance lived on, and its next statement spun on the store's
 * thread: not even /healthz answered, SIGTERM went unheard, freeing space changed nothing). Now the store is down
 * while the disk is full (503 with Retry-After), starts again by itself once space is back (WAL replay), and
 * every acknowledged job is there. The disk is a real tmpfs, filled for real.
 */
describe.skipIf(!disk.available)("a service whose disk fills up while the WAL is written", () => {
  let small: SmallDisk;
  let service: TestService;
  beforeAll(async () => {
    ({ small, service } = await serviceOnSmallDisk(96));
  });
  afterAll(async () => stopOnSmallDisk(small, service));

  /** A WAL record of 100 kB, written and flushed: a new WAL segment (16 MiB) is needed every 160 of them. */
  const WRITE_WAL = "SELECT pg_logical_emit_message(true, 'routerjobs-test', repeat('x', 100000))";

  it("answers 503 with Retry-After while the store is down, and recovers by itself when space returns", async () => {
    let acknowledged = 0;
    for (let n = 0; n < 20; n++) {
      expect((await service.submit(ROUTER_A, { description: `job ${n}`, script: ":put 1" })).status).toBe(
        202,
      );
      acknowledged++;
    }
    // WHEN the disk fills up and the WAL needs its next segment (the data files need no new page: only WAL grows)
    small.fill();
    let refused: unknown;
    for (let n = 0; n < 1_000 && refused === undefined; n++) {
      await service.service.app.db.query(WRITE_WAL).catch((error: unknown) => {
        refused = error;
      });
    }
    expect(refused).toMatchObject({ code: "53100", message: expect.stringContaining("pg_wal/") });

    // THEN /healthz and a submission answer, 503 with Retry-After: nothing hangs
    const health = await service.call("GET", "/healthz", { token: null });
    expect(health.status).toBe(503);
    expect(health.headers["retry-after"]).toBe("30");
    const submitted = await service.submit(ROUTER_A, { description: "while full", script: ":put 1" });
    expect(submitted.status).toBe(503);
    expect(submitted.headers["retry-after"]).toBe("30");

    // WHEN space comes back
    small.free();
    // THEN submissions are accepted again without a restart, as soon as the store has started again
    const accepted = await eventually(async () => {
      const answer = await service.submit(ROUTER_A, { description: "after", script: ":put 1" });
      if (answer.status !== 202) expect(answer.status).toBe(503);
      return answer.status === 202 ? answer : undefined;
    });
    expect(accepted.status).toBe(202);
    acknowledged++;
    // AND every job acknowledged before and after is listed
    const listed = (await service.jobs(ROUTER_A)) as Loose[];
    expect(listed.filter((job) => job.description !== "while full")).toHaveLength(acknowledged);
  });
});
