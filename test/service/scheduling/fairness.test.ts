/**
 * Issue 21, item 5: one team's long jobs on many routers held another team's express job pending. No team takes
 * every scheduler slot, and every job has a time limit. Issue 45, finding 5: two busy teams held every slot
 * and a third team's express job waited for as long as their queues lasted: a slot goes to the team holding
 * fewest, given back by a busier team when its job ends.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applySeed } from "../../../src/service/seed.js";
import { GatedBackend } from "../gated-backend.js";
import {
  ADMIN_TOKEN,
  eventually,
  type Loose,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  TEAM_A,
  TEAM_B,
  type TestService,
  TOKEN_B,
} from "../harness.js";

describe("scheduler fairness between teams", () => {
  let svc: TestService;
  const teamARouters = [ROUTER_A, ROUTER_A2, randomUUID(), randomUUID()];
  beforeAll(async () => {
    svc = await startTestService({
      schedulerConcurrency: 4,
      shutdownGraceMs: 100,
      rateLimit: { count: 10_000, windowMs: 1000 },
    });
    for (const id of teamARouters.slice(2)) {
      const added = await svc.call("POST", "/admin/routers", {
        token: ADMIN_TOKEN,
        body: { team_id: TEAM_A, id, name: `edge-${id.slice(0, 4)}` },
      });
      expect(added.status).toBe(200);
    }
  });
  afterAll(async () => svc?.close());

  const statusOf = async (routerId: string, key: string, token?: string) =>
    ((await svc.jobs(routerId, token)) as Loose[]).find((job) => job.idempotency_key === key)?.status;

  it("keeps a slot for another team while one team's long jobs hold the others", async () => {
    // GIVEN team A's ten-minute jobs on as many routers as there are slots
    const longJobs: [string, string][] = [];
    for (const routerId of teamARouters) {
      const ack = await svc.submit(routerId, {
        description: "long",
        script: ":delay 10m",
        express_execute: true,
      });
      longJobs.push([routerId, ack.body.data.idempotency_key]);
    }
    await eventually(async () => {
      const statuses = await Promise.all(longJobs.map(([routerId, key]) => statusOf(routerId, key)));
      return statuses.filter((status) => status === "running").length === 3 ? true : undefined;
    });
    // WHEN team B sends an express job
    const ack = (
      await svc.submit(ROUTER_B, { description: "quick", script: ":put 1", express_execute: true }, TOKEN_B)
    ).body.data;
    // THEN it runs at once, while team A's fourth job still waits for a slot of its own
    expect(
      await eventually(async () =>
        (await statusOf(ROUTER_B, ack.idempotency_key, TOKEN_B)) === "completed" ? true : undefined,
      ),
    ).toBe(true);
    const statuses = await Promise.all(longJobs.map(([routerId, key]) => statusOf(routerId, key)));
    expect(statuses.filter((status) => status === "running")).toHaveLength(3);
    expect(statuses.filter((status) => status === "pending")).toHaveLength(1);
  });
});

describe("the job time limit", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ jobTimeoutMs: 300, rateLimit: { count: 10_000, windowMs: 1000 } });
  });
  afterAll(async () => svc?.close());

  it("stops a script that runs past it and fails the job naming the limit; the next job runs", async () => {
    const long = (
      await svc.submit(ROUTER_A, { description: "long", script: ":delay 10m", express_execute: true })
    ).body.data;
    const next = (
      await svc.submit(ROUTER_A, { description: "next", script: ":put 1", express_execute: true })
    ).body.data;
    const failed = await eventually(async () => {
      const job = ((await svc.jobs(ROUTER_A)) as Loose[]).find(
        (item) => item.idempotency_key === long.idempotency_key,
      );
      return job?.status === "failed" ? job : undefined;
    });
    expect(failed.error).toBe("the script ran longer than the job time limit of 300ms and was stopped");
    await eventually(async () =>
      ((await svc.jobs(ROUTER_A)) as Loose[]).find((item) => item.idempotency_key === next.idempotency_key)
        ?.status === "completed"
        ? true
        : undefined,
    );
  });
});

const TEAM_C = "c0000000-0000-4000-8000-000000000003";
const TOKEN_C = `cc000000-0000-4000-8000-000000000001:${TEAM_C}:${"M3n4B5v6C7".repeat(6)}pp`;
const ROUTER_C = "c1000000-0000-4000-8000-000000000001";
const SEED_C = { id: TEAM_C, tokens: [TOKEN_C], routers: [{ id: ROUTER_C, name: "edge-c" }] };

describe("scheduler fairness between any number of teams", () => {
  const ROUTER_A3 = "a3000000-0000-4000-8000-000000000003";
  const ROUTER_B2 = "b2000000-0000-4000-8000-000000000002";
  const backend = new GatedBackend({ seed: 7 });
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ schedulerConcurrency: 4, shutdownGraceMs: 100 }, backend);
    await applySeed(svc.service.app.db, {
      teams: [
        { id: TEAM_A, tokens: [], routers: [{ id: ROUTER_A3, name: "edge-a3" }] },
        { id: TEAM_B, tokens: [], routers: [{ id: ROUTER_B2, name: "edge-b2" }] },
        SEED_C,
      ],
    });
  });
  afterAll(async () => {
    backend.releaseAll();
    await svc?.close();
  });

  it("gives a third team the next slot that frees while two teams' queues hold every one", async () => {
    // GIVEN team A's three routers and team B's two, two jobs queued on each, the scripts held until released
    const teamA = [ROUTER_A, ROUTER_A2, ROUTER_A3];
    const teamB = [ROUTER_B, ROUTER_B2];
    for (const routerId of [...teamA, ...teamB]) backend.held.add(routerId);
    const flood: [string, string, string | undefined][] = [];
    for (const [routerId, token] of [
      ...teamA.map((id) => [id, undefined] as const),
      ...teamB.map((id) => [id, TOKEN_B] as const),
    ]) {
      for (const round of [1, 2]) {
        const ack = await svc.submit(
          routerId,
          { description: `flood ${round}`, script: ":put flood", express_execute: true },
          token,
        );
        expect(ack.status).toBe(202);
        flood.push([routerId, ack.body.data.idempotency_key, token]);
      }
    }
    // ... and every one of the four slots taken: three by team A (its share of a full scheduler), one by B
    await eventually(async () => (backend.started.length === 4 ? true : undefined));
    expect(backend.started.filter((id) => teamA.includes(id))).toHaveLength(3);
    expect(backend.started.filter((id) => teamB.includes(id))).toEqual([ROUTER_B]);
    // WHEN team C sends one express job, then one of team A's jobs ends
    const quick = await svc.submit(
      ROUTER_C,
      { description: "quick", script: ":put 1", express_execute: true },
      TOKEN_C,
    );
    expect(quick.status).toBe(202);
    expect(backend.release(ROUTER_A)).toBe(true);
    // THEN team C's job is the next to start, before team A's router runs its next job
    await eventually(async () => (backend.started.length >= 5 ? true : undefined));
    expect(backend.started[4]).toBe(ROUTER_C);
    // ... and when it ends, its slot goes to team B (one slot held) before team A (two)
    await eventually(async () => (backend.started.length >= 6 ? true : undefined));
    expect(backend.started[5]).toBe(ROUTER_B2);
    // ... and the jobs' times say the same: team C's started before any job that started after A's first ended
    backend.releaseAll();
    const listed = await eventually(async () => {
      const lists = await Promise.all(
        [...flood.map(([routerId, , token]) => [routerId, token] as const), [ROUTER_C, TOKEN_C] as const].map(
          async ([routerId, token]) => [routerId, (await svc.jobs(routerId, token)) as Loose[]] as const,
        ),
      );
      return lists.every(([, jobs]) => jobs.every((job) => job.status === "completed")) ? lists : undefined;
    });
    const startedAt = (routerId: string, description: string): string =>
      listed.find(([id]) => id === routerId)?.[1].find((job) => job.description === description)?.started_at;
    const quickStarted = startedAt(ROUTER_C, "quick");
    expect(quickStarted).toEqual(expect.any(String));
    expect(startedAt(ROUTER_A, "flood 2") >= quickStarted).toBe(true);
    expect(startedAt(ROUTER_B2, "flood 1") >= quickStarted).toBe(true);
  });
});

describe("scheduler fairness with more teams than slots", () => {
  const backend = new GatedBackend({ seed: 7 });
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ schedulerConcurrency: 1, shutdownGraceMs: 100 }, backend);
    await applySeed(svc.service.app.db, { teams: [SEED_C] });
  });
  afterAll(async () => {
    backend.releaseAll();
    await svc?.close();
  });

  it("lets the teams take turns, one job each, instead of one team's queue running out first", async () => {
    // GIVEN team A's first job holding the only slot, its second queued behind it
    backend.held.add(ROUTER_A);
    for (const n of [1, 2]) {
      const ack = await svc.submit(ROUTER_A, {
        description: `a${n}`,
        script: ":put a",
        express_execute: true,
      });
      expect(ack.status).toBe(202);
    }
    await eventually(async () => (backend.started.length === 1 ? true : undefined));
    // WHEN teams B and C send a job each, then A's first ends
    for (const [routerId, token] of [
      [ROUTER_B, TOKEN_B],
      [ROUTER_C, TOKEN_C],
    ] as const) {
      const ack = await svc.submit(
        routerId,
        { description: "quick", script: ":put 1", express_execute: true },
        token,
      );
      expect(ack.status).toBe(202);
    }
    backend.releaseAll();
    // THEN B's and C's jobs start before A's second
    await eventually(async () => (backend.started.length === 4 ? true : undefined));
    expect(backend.started).toEqual([ROUTER_A, ROUTER_B, ROUTER_C, ROUTER_A]);
  });
});
