import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { createApp } from "../../src/service/app.js";
import { resolveConfig } from "../../src/service/config.js";
import { type Database, openDatabase } from "../../src/service/database/database.js";
import { claimNextJob, recoverJobs } from "../../src/service/jobs/lifecycle.js";
import type { JobRow } from "../../src/service/jobs/rows.js";
import { applySeed } from "../../src/service/seed.js";
import {
  ADMIN_TOKEN,
  eventually,
  LOOPBACK,
  ROUTER_A,
  ROUTER_A2,
  SEED,
  savedIdentity,
  TEAM_A,
  TOKEN_A,
} from "./harness.js";
import { holdingAfterClaims } from "./holding-after-claims.js";

/** Operator actions and job states racing with the scheduler: a job runs at most once, and never stays stuck. */
describe("job lifecycle races", () => {
  let db: Database;
  let hooks: ReturnType<typeof holdingAfterClaims>["hooks"];
  let app: FastifyInstance;
  const backend = new SimulatedBackend({ seed: 7 });

  beforeAll(async () => {
    db = await openDatabase({ location: "memory://" });
    const held = holdingAfterClaims(db);
    hooks = held.hooks;
    app = await createApp({
      config: resolveConfig({
        database: "memory://",
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
    await app?.close();
    await db?.close();
  });

  const notify_url = "https://127.0.0.1:9/hook";
  const submit = async (routerId: string, script: string) => {
    const answer = await app.inject({
      method: "POST",
      url: `/api/asynchronous/${routerId}`,
      headers: { authorization: `Bearer ${TOKEN_A}` },
      payload: { description: script, script, express_execute: true, notify_url },
    });
    expect(answer.statusCode).toBe(202);
    const key = answer.json().data.idempotency_key as string;
    const { rows } = await db.query<{ id: string }>("SELECT id FROM jobs WHERE idempotency_key = $1", [key]);
    return rows[0]?.id as string;
  };
  const admin = (method: "DELETE" | "POST", url: string, payload?: object) =>
    app.inject({
      method,
      url: `/admin${url}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(payload ? { payload } : {}),
    });
  const jobRow = async (id: string) =>
    (await db.query<JobRow>("SELECT * FROM jobs WHERE id = $1", [id])).rows[0] as JobRow;
  const waitFor = (id: string, check: (job: JobRow) => boolean, timeoutMs?: number) =>
    eventually(async () => {
      const job = await jobRow(id);
      return check(job) ? job : undefined;
    }, timeoutMs);
  const announced = async (id: string) =>
    (
      await db.query<{ status: string }>(
        "SELECT payload->>'status' AS status FROM outbox WHERE job_id = $1 ORDER BY seq",
        [id],
      )
    ).rows.map((row) => row.status);
  const addresses = async (routerId: string) =>
    (await backend.command(routerId, "/ip/address/print")).map((record) => record.address);
  const identity = async (routerId: string) =>
    (await backend.command(routerId, "/system/identity/print"))[0]?.name;

  it("a job deleted between its claim and its start never runs; the router's next job does", async () => {
    let deleted: unknown;
    hooks.afterClaim = async (job) => {
      hooks.afterClaim = async () => {};
      deleted = (await admin("DELETE", `/jobs/${job.id}`)).json().data;
    };
    const doomed = await submit(ROUTER_A, "/ip address add address=10.9.9.1/24 interface=ether1");
    const next = await submit(ROUTER_A, "/system identity set name=next");

    await waitFor(next, (job) => job.status === "completed");
    expect(deleted).toEqual({ id: doomed, status: "deleted" });
    expect(await jobRow(doomed)).toMatchObject({ status: "deleted", execution: "done", started_at: null });
    expect(await announced(doomed)).toEqual(["loaded", "deleted"]);
    expect(await addresses(ROUTER_A)).not.toContain("10.9.9.1/24");
    expect(await identity(ROUTER_A)).toBe("next");
  });

  it("a job recovered by another instance between claim and start is not started by the first", async () => {
    const other = randomUUID();
    let passesAtRecovery: number | undefined;
    hooks.afterClaim = async (job) => {
      hooks.afterClaim = async () => {};
      // Another instance found this one silent: it requeued the claim and claimed the job itself.
      await recoverJobs(db, [app.scheduler.instanceId], new Date());
      expect((await claimNextJob(db, job.router_id, other, new Date()))?.job.id).toBe(job.id);
      passesAtRecovery = app.scheduler.queuePasses(ROUTER_A2);
    };
    const id = await submit(ROUTER_A2, "/ip address add address=10.9.9.2/24 interface=ether1");

    // The end of the first instance's pass, the one that claimed (a router's passes never overlap): its start
    // attempt, and its next look at the queue, which finds the job claimed by the other instance.
    await eventually(async () =>
      passesAtRecovery !== undefined && app.scheduler.queuePasses(ROUTER_A2) > passesAtRecovery
        ? true
        : undefined,
    );
    expect(await jobRow(id)).toMatchObject({
      status: "loaded",
      execution: "claimed",
      claimed_by: other,
      started_at: null,
    });
    expect(await announced(id)).toEqual(["loaded"]);
    expect(await addresses(ROUTER_A2)).not.toContain("10.9.9.2/24");
  });

  it("a job deleted while its script runs stays deleted; the script finishes on the router, which goes on", async () => {
    const id = await submit(ROUTER_A, ":delay 1s; /system identity set name=finished-anyway");
    await waitFor(id, (job) => job.status === "running");
    expect((await admin("DELETE", `/jobs/${id}`)).json().data).toEqual({ id, status: "deleted" });

    const ended = await waitFor(id, (job) => job.execution === "done");
    expect(ended).toMatchObject({ status: "deleted", claimed_by: null, completed_at: null, error: null });
    expect(await announced(id)).toEqual(["loaded", "running", "deleted"]);
    // What the script did on the router is kept, in the saved state too.
    expect(await identity(ROUTER_A)).toBe("finished-anyway");
    expect(await savedIdentity(db, ROUTER_A)).toBe("finished-anyway");

    const after = await submit(ROUTER_A, "/system identity set name=after-delete");
    await waitFor(after, (job) => job.status === "completed");
  });

  it("removing a router while its job runs ends the job (deleted, as announced) instead of leaving it running", async () => {
    const added = await admin("POST", "/routers", { team_id: TEAM_A, name: "doomed" });
    const routerId = added.json().data.id as string;
    const id = await submit(routerId, ":delay 1s; /system identity set name=gone");
    await waitFor(id, (job) => job.status === "running");
    expect((await admin("DELETE", `/routers/${routerId}`)).json().data.deleted_jobs).toBe(1);

    const ended = await waitFor(id, (job) => job.execution === "done", 120_000);
    expect(ended).toMatchObject({ status: "deleted", claimed_by: null, error: null });
    expect(await announced(id)).toEqual(["loaded", "running", "deleted"]);
    // The scheduler goes on with other routers.
    const other = await submit(ROUTER_A, "/system identity set name=still-working");
    await waitFor(other, (job) => job.status === "completed");
  });
});
