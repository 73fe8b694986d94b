/**
 * Issue 21, item 5: one team's long jobs on many routers held another team's express job pending. No team takes
 * every scheduler slot, and every job has a time limit.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  eventually,
  type Loose,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  TEAM_A,
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
