import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpsSink } from "../helpers/https-sink.js";
import { manualClock } from "../helpers/manual-clock.js";
import { postgresAvailability, startPostgres, type TestPostgres } from "../helpers/postgres.js";
import {
  eventually,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  type TestService,
  TOKEN_A,
  TOKEN_B,
} from "./harness.js";

const availability = postgresAvailability();

describe.skipIf(!availability.available)("two instances on one PostgreSQL", () => {
  let postgres: TestPostgres;
  let sink: HttpsSink;
  let one: TestService;
  let two: TestService;
  // Both instances' rate windows run on this clock, which moves only when the test moves it.
  const clock = manualClock();
  beforeAll(async () => {
    postgres = await startPostgres();
    sink = await HttpsSink.start();
    const config = {
      database: postgres.url,
      notifyCa: sink.ca,
      tickMs: 50,
      rateLimit: { count: 5, windowMs: 5000 },
    };
    one = await startTestService(config, undefined, { rateLimitClock: clock.nowMs });
    two = await startTestService(config, undefined, { rateLimitClock: clock.nowMs });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    await sink?.close();
    await postgres?.stop();
  });

  it("shares one rate limit per key across instances", async () => {
    const path = `/api/routers/${ROUTER_A}/jobs`;
    const statuses = [];
    for (let index = 0; index < 7; index++) {
      statuses.push((await (index % 2 === 0 ? one : two).call("GET", path, { token: TOKEN_B })).status);
    }
    // TOKEN_B asks for team A's router: 404s count like any admitted request.
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429]);
  });

  it("runs a queue of jobs from both instances, none twice, one at a time per router", async () => {
    const routers: [string, string][] = [
      [ROUTER_A, TOKEN_A],
      [ROUTER_A2, TOKEN_A],
      [ROUTER_B, TOKEN_B],
    ];
    const submitted: string[] = [];
    // The per-key limit (5 per 5 s) is shared: a refused submission waits out its Retry-After on the clock.
    for (let index = 0; index < 12; index++) {
      const [router, token] = routers[index % routers.length] as [string, string];
      const instance = index % 2 === 0 ? one : two;
      const submit = () =>
        instance.submit(
          router,
          {
            description: `job ${index}`,
            script: `/ip address add address=10.9.${index}.1/24 interface=ether1`,
            express_execute: index % 3 === 0,
            notify_url: `${sink.url}/hook`,
          },
          token,
        );
      let answer = await submit();
      while (answer.status === 429) {
        clock.advance(Number(answer.headers["retry-after"]) * 1000);
        answer = await submit();
      }
      expect(answer.status).toBe(202);
      submitted.push(answer.body.data.idempotency_key);
    }
    const rows = await eventually(async () => {
      const { rows: jobs } = await one.service.app.db.query<{
        status: string;
        router_id: string;
        started_at: Date;
        completed_at: Date;
        id: string;
        idempotency_key: string;
      }>("SELECT id, idempotency_key, status, router_id, started_at, completed_at FROM jobs");
      return jobs.length === 12 && jobs.every((job) => job.status === "completed") ? jobs : undefined;
    }, 120_000);
    expect(rows.map((job) => job.idempotency_key).sort()).toEqual([...submitted].sort());
    // Running a job twice would fail the second run: "already have such address".
    for (const router of [ROUTER_A, ROUTER_A2, ROUTER_B]) {
      const spans = rows
        .filter((job) => job.router_id === router)
        .map((job) => [job.started_at.getTime(), job.completed_at.getTime()] as const)
        .sort((a, b) => a[0] - b[0]);
      for (let index = 1; index < spans.length; index++) {
        expect(spans[index]?.[0]).toBeGreaterThanOrEqual(spans[index - 1]?.[1] as number);
      }
    }
    await sink.waitFor(
      (received) =>
        rows.every((job) =>
          received.some((item) => item.body.job_id === job.id && item.body.status === "completed"),
        ),
      120_000,
    );
    for (const job of rows) expect(sink.statuses(job.id)).toEqual(["loaded", "running", "completed"]);
  });
});
