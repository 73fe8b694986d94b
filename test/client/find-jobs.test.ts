/**
 * `findJobs`: the jobs whose description holds a text (how `routerjobs apply` finds its attempt marker). On our
 * service the list is filtered and paged there, so a router's long history costs nothing; against a service
 * without the extension (the public service's stand-in ignores the query, the scripted one refuses it) the
 * client falls back to the plain list and filters it itself.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../src/client/index.js";
import {
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  TEAM_A,
  type TestService,
  TOKEN_A,
} from "../service/harness.js";
import { startStandIn as startPublicStandIn } from "../standin/standin.js";
import { byteCounter } from "./helpers/byte-relay.js";
import { makeClient, tempBudgetDir } from "./helpers/make-client.js";
import { ROUTER_ID, startStandIn } from "./helpers/stand-in-service.js";

const HISTORY = 10_000;
const MARKER_PREFIX = "[rj:abcd-";

/**
 * `count` jobs on a router straight into the table (as the service would have stored them): every 2,500th
 * is an attempt of the resource `abcd`, newest last; the rest are other jobs.
 */
async function fillHistory(svc: TestService, routerId: string, count: number): Promise<void> {
  await svc.service.app.db.query(
    `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
       description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at)
     SELECT gen_random_uuid(), $1, $2, n, 't' || n, gen_random_uuid(), gen_random_uuid(), 'h',
       CASE WHEN n % 2500 = 0 THEN 'Set DNS [rj:abcd-ef23-gh45-' || (n / 2500) || ']'
            ELSE 'Other change ' || n || ' [rj:zzzz-ef23-gh45-1]' END,
       '/log info x', false, false, true, 'completed', 'done', now()
     FROM generate_series(1, $3::int) AS n`,
    [routerId, TEAM_A, count],
  );
  await svc.service.app.db.query("UPDATE routers SET next_seq = $2 WHERE id = $1", [routerId, count + 1]);
}

describe("findJobs on our service: filtered and paged there", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
    await fillHistory(svc, ROUTER_A2, HISTORY);
  });
  afterAll(async () => svc?.close());

  const clientVia = (baseUrl: string) =>
    new RouterJobsClient({
      baseUrl,
      token: TOKEN_A,
      ca: svc.service.ca,
      budgetDir: tempBudgetDir(),
      rateLimit: { count: 1000, windowMs: 1000 },
      deadlineMs: 30_000,
    });
  const admitted = () => [...svc.service.app.admittedRequests.values()].reduce((a, b) => a + b, 0);

  it("finds a resource's attempts in a 10,000-job router with one request of one page", async () => {
    const relay = await byteCounter(new URL(svc.url));
    const client = clientVia(relay.url);
    try {
      const before = admitted();
      const found = await client.findJobs(ROUTER_A2, MARKER_PREFIX);
      expect(admitted() - before).toBe(1);
      expect(found.map((job) => job.seq_id)).toEqual([10_000, 7500, 5000, 2500]);
      const filteredBytes = relay.received();
      // The same router's plain list, through the same relay: what every look cost before.
      const all = await client.listJobs(ROUTER_A2);
      expect(all).toHaveLength(HISTORY);
      const plainBytes = relay.received() - filteredBytes;
      expect(filteredBytes * 500).toBeLessThan(plainBytes);
    } finally {
      await client.close();
      await relay.close();
    }
  });

  it("follows the cursor when more jobs match than one page holds, newest first", async () => {
    const client = clientVia(svc.url);
    try {
      const before = admitted();
      // Every "Other change" matches: 9,996 jobs, a hundred pages; checked on a narrower text instead.
      const found = await client.findJobs(ROUTER_A2, "Other change 99");
      // 99, 990-999, 9900-9999 minus none of them being an `abcd` attempt: 1 + 10 + 100 = 111 jobs.
      expect(found).toHaveLength(111);
      expect(admitted() - before).toBe(2);
      const seqs = found.map((job) => job.seq_id ?? 0);
      expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    } finally {
      await client.close();
    }
  });

  it("answers an unknown router as the plain list does (404), and an empty match as no jobs", async () => {
    const client = clientVia(svc.url);
    try {
      await expect(client.findJobs(randomUUID(), MARKER_PREFIX)).rejects.toMatchObject({ statusCode: 404 });
      expect(await client.findJobs(ROUTER_B, MARKER_PREFIX).catch((error) => error)).toMatchObject({
        statusCode: 404,
      });
      expect(await client.findJobs(ROUTER_A2, "[rj:none-")).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe("findJobs without the extension: the plain list, filtered by the client", () => {
  it("against the public service's stand-in, which ignores the query: one request, then no query again", async () => {
    const token = `11111111-2222-4333-8444-555555555555:66666666-7777-4888-9999-aaaaaaaaaaaa:${"Ab1".repeat(20)}xy`;
    const siteId = randomUUID();
    const standIn = await startPublicStandIn({
      teams: [{ id: randomUUID(), tokens: [token], sites: [siteId] }],
    });
    const client = new RouterJobsClient({
      baseUrl: standIn.url,
      token,
      budgetDir: tempBudgetDir(),
      retry: { baseDelayMs: 10, maxDelayMs: 50 },
    });
    try {
      for (const description of ["Set DNS [rj:abcd-ef23-gh45-1]", "Other [rj:zzzz-ef23-gh45-1]"])
        await client.submitJob(siteId, { description, script: "/log info x", needs_acknowledgement: false });
      const first = await client.findJobs(siteId, MARKER_PREFIX);
      const second = await client.findJobs(siteId, MARKER_PREFIX.toUpperCase());
      expect(first.map((job) => job.description)).toEqual(["Set DNS [rj:abcd-ef23-gh45-1]"]);
      expect(second.map((job) => job.description)).toEqual(["Set DNS [rj:abcd-ef23-gh45-1]"]);
      const lists = standIn
        .requests()
        .filter((logged) => logged.path.includes("/jobs") && logged.method === "GET");
      expect(lists.map((logged) => logged.path.includes("?"))).toEqual([true, false]);
    } finally {
      await client.close();
      await standIn.close();
    }
  });

  it("against a service that refuses the query (400): falls back to the plain list for good", async () => {
    const service = await startStandIn();
    const client = makeClient(service.url);
    try {
      await client.submitJob(ROUTER_ID, {
        description: "Set DNS [rj:abcd-ef23-gh45-1]",
        script: "/log info x",
      });
      service.script({
        status: 400,
        body: { status: "error", error: { code: "invalid_request", message: "no" } },
      });
      const found = await client.findJobs(ROUTER_ID, MARKER_PREFIX);
      expect(found.map((job) => job.description)).toEqual(["Set DNS [rj:abcd-ef23-gh45-1]"]);
      // The scripted stand-in matches its routes exactly, so a query it does not know is a 404 too.
      expect((await client.findJobs(ROUTER_ID, "[rj:zzzz-")).length).toBe(0);
      const paths = service.requests.filter((r) => r.method === "GET").map((r) => r.path.includes("?"));
      expect(paths).toEqual([true, false, false]);
    } finally {
      await client.close();
      await service.close();
    }
  });

  it("against a service that pages but ignores `text`: the plain list once, not every page", async () => {
    const service = await startStandIn();
    const client = makeClient(service.url);
    try {
      for (const description of ["Set DNS [rj:abcd-ef23-gh45-1]", "Other [rj:zzzz-ef23-gh45-1]"])
        await client.submitJob(ROUTER_ID, { description, script: "/log info x" });
      const everyJob = await client.listJobs(ROUTER_ID);
      service.script({ status: 200, body: { status: "success", data: everyJob, next_cursor: "more" } });
      const found = await client.findJobs(ROUTER_ID, MARKER_PREFIX);
      expect(found.map((job) => job.description)).toEqual(["Set DNS [rj:abcd-ef23-gh45-1]"]);
      const paths = service.requests.filter((r) => r.method === "GET").map((r) => r.path.includes("?"));
      expect(paths).toEqual([false, true, false]);
    } finally {
      await client.close();
      await service.close();
    }
  });

  it("never sends the query to the sites API (sdx)", async () => {
    const service = await startStandIn();
    const client = makeClient(service.url, { api: "sdx" });
    try {
      await client.findJobs(ROUTER_ID, MARKER_PREFIX).catch(() => undefined);
      expect(service.requests.every((r) => !r.path.includes("?"))).toBe(true);
      expect(service.requests.length).toBeGreaterThan(0);
    } finally {
      await client.close();
      await service.close();
    }
  });
});
