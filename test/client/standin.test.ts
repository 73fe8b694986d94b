/**
 * The client's `spec` profile against the stand-in of the public service (test/standin, written from
 * ALTOSTRAT.md alone), so that our client and our service cannot agree on one misreading.
 */
import { randomUUID } from "node:crypto";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RouterJobsClient, type RouterJobsClientOptions } from "../../src/client/index.js";
import { RateBudget } from "../../src/client/rate-budget.js";
import { jobListResponseSchema } from "../../src/contract/job.js";
import { tokenFingerprint } from "../../src/contract/token.js";
import { type StandIn, startStandIn } from "../standin/standin.js";
import { tempBudgetDir } from "./helpers/make-client.js";
import { ROUTER_ID, startStandIn as startScriptedService, TOKEN } from "./helpers/stand-in-service.js";

const SPEC_TOKEN = `11111111-2222-4333-8444-555555555555:66666666-7777-4888-9999-aaaaaaaaaaaa:${"Ab1".repeat(20)}xy`;
const JWT =
  "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZWFtLTEiLCJleHAiOjE4OTM0NTYwMDB9.c2lnbmF0dXJlLWJ5dGVz-_x";
const API_KEY = "ak_live_7Hq9+Zr/2mX~vP.Lw==";

function clientFor(standIn: StandIn, token: string, overrides: Partial<RouterJobsClientOptions> = {}) {
  return new RouterJobsClient({
    baseUrl: standIn.url,
    token,
    budgetDir: tempBudgetDir(),
    retry: { baseDelayMs: 10, maxDelayMs: 50 },
    deadlineMs: 20_000,
    ...overrides,
  });
}

/** API B's job list, straight from the stand-in: a bare array of jobs without `status` or `seq_id`. */
async function sitesJobList(standIn: StandIn, siteId: string, token: string): Promise<unknown> {
  const response = await request(`${standIn.url}/sites/${siteId}/jobs`, {
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });
  expect(response.statusCode).toBe(200);
  return response.body.json();
}

describe("client (spec profile) against the stand-in of the public service", () => {
  const siteId = randomUUID();
  /** A site of its own: the stand-in runs one job at a time per site, and holds each until released. */
  const quietSiteId = randomUUID();
  let standIn: StandIn;
  let client: RouterJobsClient;

  beforeAll(async () => {
    standIn = await startStandIn({
      teams: [{ id: randomUUID(), tokens: [SPEC_TOKEN, JWT, API_KEY], sites: [siteId, quietSiteId] }],
      holdJobs: true,
    });
    client = clientFor(standIn, SPEC_TOKEN);
  });
  afterAll(async () => {
    await client?.close();
    await standIn?.close();
  });

  it("submits: a 200 answer succeeds, and the service's own idempotency_key comes back (ours is ignored)", async () => {
    const key = randomUUID();
    const request = { description: "identity", script: "/system identity print" };
    const first = await client.submitJob(siteId, request, { idempotencyKey: key });
    expect(first.idempotencyKey).toBe(key);
    expect(first.ack.idempotency_key).not.toBe(key);
    expect(first.ack.target).toBe(siteId);
    const posts = standIn.requests().filter((entry) => entry.method === "POST");
    expect(posts.at(-1)).toMatchObject({ path: `/api/asynchronous/${siteId}`, status: 200 });
    // The same key again makes a second job: the stand-in, like the public service, has no idempotency header.
    const second = await client.submitJob(siteId, request, { idempotencyKey: key });
    expect(second.ack.idempotency_key).not.toBe(first.ack.idempotency_key);
    const keys = (await client.listJobs(siteId)).map((job) => job.idempotency_key);
    expect(keys).toEqual(expect.arrayContaining([first.ack.idempotency_key, second.ack.idempotency_key]));
  });

  it("lists API A's envelope, newest first, with statuses and backups read", async () => {
    const { ack } = await client.submitJob(siteId, {
      description: "with backup",
      script: "/system identity print",
      make_backup: true,
    });
    const jobs = await client.listJobs(siteId);
    expect(standIn.requests().at(-1)).toMatchObject({ path: `/api/routers/${siteId}/jobs`, status: 200 });
    expect(jobs[0]).toMatchObject({
      idempotency_key: ack.idempotency_key,
      make_backup: true,
      status: "pending",
    });
    // The newer edition's default: needs_acknowledgement false when not sent (the client sends the spec's true).
    expect(jobs[0]?.needs_acknowledgement).toBe(true);
  });

  it("reads a job without status from its timestamps (API B's bare array, as the stand-in sends it)", async () => {
    const { ack } = await client.submitJob(quietSiteId, {
      description: "runs",
      script: "/system identity print",
      express_execute: true,
    });
    const listed = await client.listJobs(quietSiteId);
    const jobId = listed.find((item) => item.idempotency_key === ack.idempotency_key)?.id as string;
    await standIn.waitForStatus(jobId, "running");
    const running = jobListResponseSchema.parse(await sitesJobList(standIn, quietSiteId, SPEC_TOKEN));
    const seen = running.data.find((item) => item.id === jobId);
    expect(seen).toMatchObject({ status: "running", started_at: expect.any(String), completed_at: null });
    expect(seen).not.toHaveProperty("seq_id");
    expect(seen?.make_backup).toBe(false);

    standIn.release(jobId);
    await standIn.waitForStatus(jobId, "completed");
    const done = jobListResponseSchema.parse(await sitesJobList(standIn, quietSiteId, SPEC_TOKEN));
    expect(done.data.find((item) => item.id === jobId)?.status).toBe("completed");
    expect(await client.listJobs(quietSiteId)).toEqual([
      expect.objectContaining({ id: jobId, status: "completed" }),
    ]);
  });

  it("accepts a JWT and an opaque API key, and the stand-in authenticates both", async () => {
    for (const token of [JWT, API_KEY]) {
      const other = clientFor(standIn, token);
      try {
        const before = standIn.requests().length;
        await expect(other.listJobs(siteId)).resolves.toEqual(expect.any(Array));
        expect(standIn.requests().slice(before)).toEqual([expect.objectContaining({ status: 200 })]);
        expect(String(other)).not.toContain(token);
      } finally {
        await other.close();
      }
    }
  });

  it("refuses a value that cannot be a bearer token before anything is sent, without echoing it", () => {
    const before = standIn.requests().length;
    for (const [token, reason] of [
      ["", "token is empty"],
      [
        `${JWT.slice(0, 20)} ${JWT.slice(20)}`,
        "token must not contain whitespace or control characters (one at position 21)",
      ],
      [`${API_KEY}\n`, "whitespace or control characters"],
      [`${API_KEY}é`, "token must be ASCII only"],
    ] as const) {
      const error = (() => {
        try {
          return clientFor(standIn, token);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toMatchObject({ name: "ValidationError" });
      expect((error as Error).message).toContain(reason);
      if (token.length > 0) expect((error as Error).message).not.toContain(token.trim().slice(0, 12));
    }
    expect(standIn.requests().length).toBe(before);
  });
});

describe("client against the stand-in: a 429 without Retry-After", () => {
  const siteId = randomUUID();
  const windowMs = 2000;
  let standIn: StandIn;

  beforeAll(async () => {
    standIn = await startStandIn({
      teams: [{ id: randomUUID(), tokens: [API_KEY], sites: [siteId] }],
      rateLimitMax: 2,
      rateLimitWindowMs: windowMs,
      retryAfterHeader: false,
    });
  });
  afterAll(async () => {
    await standIn?.close();
  });

  it("holds every client of the key until the local window frees, so the service refuses only once", async () => {
    const budgetDir = tempBudgetDir();
    // The local budget is looser than the service's, as when the public service's real limit is unknown.
    const settings = { budgetDir, rateLimit: { count: 10, windowMs } };
    const first = clientFor(standIn, API_KEY, settings);
    const second = clientFor(standIn, API_KEY, settings);
    const shared = new RateBudget({
      dir: budgetDir,
      key: tokenFingerprint(API_KEY),
      rateLimit: settings.rateLimit,
    });
    try {
      // The two the service's window allows, together: the client holds until the older of them leaves the
      // window, so they must leave it together. One after the other on a loaded machine, they were answered
      // hundreds of ms apart, and the second was still in the window when the held calls went.
      await Promise.all([first.listJobs(siteId), first.listJobs(siteId)]);
      const held = first.listJobs(siteId);
      // The 429 has been answered once the shared file names a hold; then a second client starts.
      await vi.waitFor(async () => expect((await shared.snapshot()).blockedUntil).toBeGreaterThan(0), {
        timeout: 5000,
        interval: 5,
      });
      const state = await shared.snapshot();
      const oldestAnswer = Math.min(...state.grants.filter((grant) => !grant.open).map((grant) => grant.t));
      expect(state.blockedUntil).toBeGreaterThanOrEqual(oldestAnswer + windowMs);
      await Promise.all([held, second.listJobs(siteId)]);

      const statuses = standIn.requests().map((entry) => entry.status);
      expect(statuses.filter((status) => status === 429)).toHaveLength(1);
      expect(statuses.filter((status) => status === 200)).toHaveLength(4);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});

// The stand-in's API A always answers the envelope; its bare-array variant exists only in API B. The client's
// list call must read a bare array too, so the scripted service replays the body the stand-in's API B sent.
describe("client: a bare-array job list at the spec's path", () => {
  const siteId = randomUUID();
  let standIn: StandIn;

  beforeAll(async () => {
    standIn = await startStandIn({ teams: [{ id: randomUUID(), tokens: [API_KEY], sites: [siteId] }] });
  });
  afterAll(async () => {
    await standIn?.close();
  });

  it("reads the stand-in's bare array of jobs without status, as an envelope", async () => {
    const submitter = clientFor(standIn, API_KEY);
    await submitter.submitJob(siteId, { description: "one", script: "/system identity print" });
    await submitter.close();
    const body = await sitesJobList(standIn, siteId, API_KEY);
    expect(Array.isArray(body)).toBe(true);

    const service = await startScriptedService();
    const client = new RouterJobsClient({ baseUrl: service.url, token: TOKEN, budgetDir: tempBudgetDir() });
    try {
      service.script({ status: 200, body });
      const jobs = await client.listJobs(ROUTER_ID);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ description: "one", status: "pending", make_backup: false });
      expect(jobs[0]).toHaveProperty("should_backup", false);
    } finally {
      await client.close();
      await service.close();
    }
  });
});
