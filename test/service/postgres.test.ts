import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobListJson, jobPage, jobPageJson } from "../../src/service/jobs/job-page.js";
import { HttpsSink } from "../helpers/https-sink.js";
import { manualClock } from "../helpers/manual-clock.js";
import { postgresAvailability, startPostgres, type TestPostgres } from "../helpers/postgres.js";
import {
  eventually,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  TEAM_A,
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

  it("reads a router's jobs in keyset pages and chunks, filtered by text, as on PGlite", async () => {
    const db = one.service.app.db;
    // Seven jobs above the others' seq ids, five of them matching the filter.
    await db.query(
      `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
         description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at)
       SELECT gen_random_uuid(), $1, $2, 1000 + n, 't' || n, gen_random_uuid(), gen_random_uuid(), 'h',
         CASE WHEN n % 3 = 0 THEN 'other ' || n ELSE 'Paged_Marker ' || n END, '/log info x', false, false, true,
         'completed', 'done', now()
       FROM generate_series(1, 7) AS n`,
      [ROUTER_A2, TEAM_A],
    );
    const query = { teamId: TEAM_A, routerId: ROUTER_A2, text: "paged_marker" };
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await jobPage(db, { ...query, limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.jobs.map((job) => job.seq_id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([1007, 1005, 1004, 1002, 1001]);
    const json = await jobPageJson(db, { ...query, limit: 5 });
    expect(json.nextCursor).toBeUndefined();
    const listed: string[] = [];
    for await (const chunk of jobListJson(db, query)) listed.push(chunk);
    expect(JSON.parse(`[${listed.join(",")}]`)).toEqual(JSON.parse(json.json));
  });
});
