/**
 * Issue 50: one job by id and cancelling a job that has not started, on the sites API of our service
 * (`/sites/{siteId}/jobs/{jobId}`, alias `/site/{siteId}/job/{jobId}`), with the public service's documented
 * error body for a job that already started. A cancel racing the scheduler ends in exactly one state.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { siteJobSchema } from "../../src/contract/sites.js";
import { createApp } from "../../src/service/app.js";
import { resolveConfig } from "../../src/service/config.js";
import { type Database, openDatabase } from "../../src/service/database/database.js";
import { cancelJob, claimNextJob, markStarted } from "../../src/service/jobs/lifecycle.js";
import type { JobRow } from "../../src/service/jobs/rows.js";
import { applySeed } from "../../src/service/seed.js";
import { postgresAvailability, startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { GatedBackend } from "./gated-backend.js";
import {
  ADMIN_TOKEN,
  eventually,
  LOOPBACK,
  type Loose,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  SEED,
  startTestService,
  type TestService,
  TOKEN_A,
  TOKEN_B,
} from "./harness.js";
import { holdingAfterClaims } from "./holding-after-claims.js";

const SITE_JOB_FIELDS = Object.keys(siteJobSchema.shape).sort();
const DOCUMENTED_ERROR_FIELDS = ["code", "doc_url", "message", "type"];

describe("one job and cancel on the sites API, racing the scheduler", () => {
  let db: Database;
  let hooks: ReturnType<typeof holdingAfterClaims>["hooks"];
  let app: FastifyInstance;
  const backend = new GatedBackend({ seed: 7 });

  beforeAll(async () => {
    db = await openDatabase({ location: "memory://" });
    const held = holdingAfterClaims(db);
    hooks = held.hooks;
    app = await createApp({
      config: resolveConfig({
        database: "memory://",
        // Only express jobs run (at submission): a job sent without express stays pending.
        tickMs: 60_000,
        adminToken: ADMIN_TOKEN,
        rateLimit: { count: 10_000, windowMs: 1000 },
        notifyAllow: LOOPBACK,
      }),
      backend,
      db: held.db,
    });
    await app.ready();
    await applySeed(app.db, SEED as never);
  });
  afterAll(async () => {
    backend.releaseAll();
    await app?.close();
    await db?.close();
  });

  const call = (method: "GET" | "DELETE" | "POST", url: string, token = TOKEN_A) =>
    app.inject({ method, url, headers: { authorization: `Bearer ${token}` } });
  const submit = async (siteId: string, script: string, express: boolean) => {
    const answer = await app.inject({
      method: "POST",
      url: `/sites/${siteId}/jobs`,
      headers: {
        authorization: `Bearer ${TOKEN_A}`,
        "content-type": "text/plain",
        "x-idempotency-key": randomUUID(),
        "x-description": `job ${script.slice(0, 40)}`,
        "x-express-execute": String(express),
      },
      payload: script,
    });
    expect(answer.statusCode).toBe(202);
    return answer.json().id as string;
  };
  const jobRow = async (id: string) =>
    (await db.query<JobRow>("SELECT * FROM jobs WHERE id = $1", [id])).rows[0] as JobRow;
  const waitFor = (id: string, check: (job: JobRow) => boolean) =>
    eventually(async () => {
      const job = await jobRow(id);
      return check(job) ? job : undefined;
    });
  const identity = async (routerId: string) =>
    (await backend.command(routerId, "/system/identity/print"))[0]?.name;

  describe("GET one job", () => {
    it("answers the job object the list shows, under both spellings of the path", async () => {
      const id = await submit(ROUTER_A2, "/system identity set name=one-job", false);
      const listed = (await call("GET", `/sites/${ROUTER_A2}/jobs`)).json() as Loose[];
      for (const url of [`/sites/${ROUTER_A2}/jobs/${id}`, `/site/${ROUTER_A2}/job/${id}`]) {
        const answer = await call("GET", url);
        expect(answer.statusCode).toBe(200);
        expect(Object.keys(answer.json()).sort()).toEqual(SITE_JOB_FIELDS);
        expect(answer.json()).toEqual(listed.find((job) => job.id === id));
      }
    });

    it("answers 404 for an unknown job, a job id that is no UUID, another site's job and another team's site", async () => {
      const id = await submit(ROUTER_A2, "/system identity set name=elsewhere", false);
      const answers = [
        await call("GET", `/sites/${ROUTER_A2}/jobs/${randomUUID()}`),
        await call("GET", `/sites/${ROUTER_A2}/jobs/not-a-uuid`),
        await call("GET", `/sites/${ROUTER_A}/jobs/${id}`),
        await call("GET", `/sites/${ROUTER_A2}/jobs/${id}`, TOKEN_B),
        await call("DELETE", `/sites/${ROUTER_A2}/jobs/${id}`, TOKEN_B),
      ];
      expect(answers.map((answer) => [answer.statusCode, answer.json().error.code])).toEqual([
        [404, "not_found"],
        [404, "not_found"],
        [404, "not_found"],
        [404, "router_not_found"],
        [404, "router_not_found"],
      ]);
      // Another team's cancel changed nothing.
      expect((await jobRow(id)).status).toBe("pending");
    });

    it("answers 405 with Allow for other methods", async () => {
      const answer = await call("POST", `/sites/${ROUTER_A2}/jobs/${randomUUID()}`);
      expect(answer.statusCode).toBe(405);
      expect(answer.headers.allow).toBe("GET, DELETE, HEAD");
    });
  });

  describe("DELETE (cancel)", () => {
    it("cancels a pending job: 200 with the job, then not found, not listed, deleted in the spec's list, never run", async () => {
      const id = await submit(ROUTER_A2, "/system identity set name=never-cancelled", false);
      const answer = await call("DELETE", `/site/${ROUTER_A2}/job/${id}`);
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toMatchObject({ id, started_at: null, completed_at: null, failed_at: null });

      expect((await call("GET", `/sites/${ROUTER_A2}/jobs/${id}`)).statusCode).toBe(404);
      expect((await call("DELETE", `/sites/${ROUTER_A2}/jobs/${id}`)).statusCode).toBe(404);
      const listed = (await call("GET", `/sites/${ROUTER_A2}/jobs`)).json() as Loose[];
      expect(listed.map((job) => job.id)).not.toContain(id);
      const spec = (await call("GET", `/api/routers/${ROUTER_A2}/jobs`)).json().data as Loose[];
      expect(spec.find((job) => job.id === id)?.status).toBe("deleted");
      // The next express job runs the router's queue: the cancelled one is not in it.
      const after = await submit(ROUTER_A2, "/system identity set name=after-cancel", true);
      await waitFor(after, (job) => job.status === "completed");
      expect(await identity(ROUTER_A2)).toBe("after-cancel");
      expect(await jobRow(id)).toMatchObject({ status: "deleted", execution: "done", started_at: null });
    });

    it("cancel wins when it comes between the scheduler's claim and the script's start: the script never runs", async () => {
      let cancelled: { status: number; body: Loose } | undefined;
      hooks.afterClaim = async (job) => {
        hooks.afterClaim = async () => {};
        const answer = await call("DELETE", `/sites/${job.router_id}/jobs/${job.id}`);
        cancelled = { status: answer.statusCode, body: answer.json() };
      };
      const started = backend.started.length;
      const doomed = await submit(ROUTER_A, "/system identity set name=cancelled-while-claimed", true);
      const next = await submit(ROUTER_A, "/system identity set name=next-after-claim", true);

      await waitFor(next, (job) => job.status === "completed");
      expect(cancelled).toMatchObject({ status: 200, body: { id: doomed, started_at: null } });
      expect(await jobRow(doomed)).toMatchObject({ status: "deleted", execution: "done", started_at: null });
      // One script ran since: the next job's.
      expect(backend.started.length - started).toBe(1);
      expect(await identity(ROUTER_A)).toBe("next-after-claim");
    });

    it("a job whose script started cannot be cancelled: 409 with the documented body, and it completes", async () => {
      backend.held.add(ROUTER_A);
      const id = await submit(ROUTER_A, "/system identity set name=started-then-cancel", true);
      await waitFor(id, (job) => job.status === "running");

      const answer = await call("DELETE", `/sites/${ROUTER_A}/jobs/${id}`);
      expect(answer.statusCode).toBe(409);
      expect(Object.keys(answer.json()).sort()).toEqual(DOCUMENTED_ERROR_FIELDS);
      expect(answer.json()).toEqual({
        type: "invalid_request_error",
        code: "job_already_started",
        message: `job ${id} is running: only a job that has not started can be cancelled`,
        doc_url: "https://docs.altostrat.io/errors/job_already_started",
      });
      expect((await jobRow(id)).status).toBe("running");

      backend.releaseAll();
      const done = await waitFor(id, (job) => job.execution === "done");
      expect(done).toMatchObject({ status: "completed", deleted_at: null });
      expect(await identity(ROUTER_A)).toBe("started-then-cancel");
    });

    it("a completed or failed job cannot be cancelled either, and says which it is", async () => {
      const completed = await submit(ROUTER_A, "/system identity set name=done-before-cancel", true);
      const failed = await submit(ROUTER_A, ':error "no"', true);
      await waitFor(failed, (job) => job.status === "failed");
      for (const [id, status] of [
        [completed, "completed"],
        [failed, "failed"],
      ] as const) {
        const answer = await call("DELETE", `/sites/${ROUTER_A}/jobs/${id}`);
        expect(answer.statusCode).toBe(409);
        expect(answer.json()).toMatchObject({ code: "job_already_started" });
        expect(answer.json().message).toContain(`is ${status}`);
        expect((await jobRow(id)).status).toBe(status);
      }
    });

    it("a job completed at submission (no acknowledgement) cannot be cancelled", async () => {
      const answer = await app.inject({
        method: "POST",
        url: `/sites/${ROUTER_A2}/jobs`,
        headers: {
          authorization: `Bearer ${TOKEN_A}`,
          "content-type": "text/plain",
          "x-idempotency-key": randomUUID(),
          "x-description": "no acknowledgement",
          "x-needs-ack": "false",
        },
        payload: ":put 1",
      });
      const id = answer.json().id as string;
      const refused = await call("DELETE", `/sites/${ROUTER_A2}/jobs/${id}`);
      expect([refused.statusCode, refused.json().code]).toEqual([409, "job_already_started"]);
    });
  });
});

const availability = postgresAvailability();

/**
 * The same race with nothing held: a cancel and the scheduler's start sent together on PostgreSQL, each in
 * its own connection. Whichever the database orders first, the job ends in exactly one state, and the cancel's
 * answer says which.
 */
describe.skipIf(!availability.available)("cancel against start on PostgreSQL", () => {
  let postgres: TestPostgres;
  let svc: TestService;
  beforeAll(async () => {
    postgres = await startPostgres();
    svc = await startTestService({ database: postgres.url, tickMs: 60_000 });
  });
  afterAll(async () => {
    await svc?.close();
    await postgres?.stop();
  });

  it("ends in exactly one state, truthfully answered, 20 times over", async () => {
    const db = svc.service.app.db;
    const instance = randomUUID();
    for (let round = 0; round < 20; round++) {
      const posted = await svc.call("POST", `/sites/${ROUTER_B}/jobs`, {
        token: TOKEN_B,
        raw: ":put 1",
        headers: {
          "content-type": "text/plain",
          "x-idempotency-key": randomUUID(),
          "x-description": `race ${round}`,
        },
      });
      const id = posted.body.id as string;
      const claimed = await claimNextJob(db, ROUTER_B, instance, new Date());
      expect(claimed?.job.id).toBe(id);
      const [cancel, started] = await Promise.all([
        cancelJob(db, { teamId: claimed?.job.team_id as string, routerId: ROUTER_B, jobId: id }, new Date()),
        markStarted(db, id, instance, new Date()),
      ]);
      const row = (await db.query<JobRow>("SELECT * FROM jobs WHERE id = $1", [id])).rows[0];
      if (cancel.kind === "cancelled") {
        expect(started).toBeUndefined();
        expect(row).toMatchObject({ status: "deleted", execution: "done", started_at: null });
      } else {
        expect(cancel).toMatchObject({ kind: "already_started", job: { status: "running" } });
        expect(started?.status).toBe("running");
        expect(row).toMatchObject({ status: "running", execution: "started", deleted_at: null });
        // End it so the router's queue moves on to the next round's job.
        await db.query("UPDATE jobs SET execution = 'done', status = 'completed' WHERE id = $1", [id]);
      }
    }
  });
});
