import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkError, RateBudget, RateLimitedError } from "../../src/client/index.js";
import { tokenFingerprint } from "../../src/contract/token.js";
import { makeClient, tempBudgetDir } from "./helpers/make-client.js";
import { envelope, ROUTER_ID, type StandIn, startStandIn, TOKEN } from "./helpers/stand-in-service.js";

const JOB = { description: "d", script: ":put 1" };
let service: StandIn;

beforeAll(async () => {
  service = await startStandIn();
});
afterAll(async () => {
  await service.close();
});

const since = (start: number) => service.requests.slice(start);

describe("retries over a real connection", () => {
  it("retries a list after a dropped connection, a 500 and a 503", async () => {
    const client = makeClient(service.url);
    const start = service.requests.length;
    service.script(
      { drop: true },
      { status: 500, body: envelope("internal_error", "boom") },
      { status: 503, body: "down" },
    );
    await expect(client.listJobs(ROUTER_ID)).resolves.toEqual(expect.any(Array));
    expect(since(start)).toHaveLength(4);
    await client.close();
  });

  it("never retries a synchronous command", async () => {
    const client = makeClient(service.url);
    for (const answer of [
      { drop: true as const },
      { status: 503, body: "down", headers: { "retry-after": "0" } },
    ]) {
      const start = service.requests.length;
      service.script(answer);
      await expect(client.execute(ROUTER_ID, "/ip/arp/print")).rejects.toBeDefined();
      expect(since(start)).toHaveLength(1);
    }
    await client.close();
  });

  it("does not retry a submission that may have reached the service", async () => {
    const client = makeClient(service.url);
    const start = service.requests.length;
    service.script({ drop: true });
    const error = await client.submitJob(ROUTER_ID, JOB).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).requestSent).toBe(true);
    expect(since(start)).toHaveLength(1);
    await client.close();
  });

  it("retries a submission the service deferred (429, 503 + Retry-After) with the same key", async () => {
    const client = makeClient(service.url);
    const start = service.requests.length;
    service.script(
      { status: 429, body: { message: "Too Many Attempts." }, headers: { "retry-after": "0" } },
      { status: 503, body: envelope("service_unavailable", "maintenance"), headers: { "retry-after": "0" } },
    );
    const { idempotencyKey } = await client.submitJob(ROUTER_ID, JOB);
    const keys = since(start).map((request) => [
      request.headers["idempotency-key"],
      request.headers["x-idempotency-key"],
    ]);
    expect(keys).toEqual([
      [idempotencyKey, idempotencyKey],
      [idempotencyKey, idempotencyKey],
      [idempotencyKey, idempotencyKey],
    ]);
    await client.close();
  });

  it("retries a submission refused at connect time, once the service is up, with the same key", async () => {
    const late = await startStandIn();
    const port = late.port;
    await late.close();
    const client = makeClient(`http://127.0.0.1:${port}`, {
      retry: { baseDelayMs: 200, maxDelayMs: 400, maxAttempts: 10 },
    });
    const submitted = client.submitJob(ROUTER_ID, JOB);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const revived = await startStandIn({ port });
    const { idempotencyKey } = await submitted;
    expect(revived.requests.map((request) => request.headers["idempotency-key"])).toEqual([idempotencyKey]);
    await client.close();
    await revived.close();
  });

  it("honours Retry-After given as an HTTP date in full", async () => {
    const client = makeClient(service.url);
    const start = service.requests.length;
    const date = new Date(Date.now() + 2000).toUTCString();
    service.script({ status: 429, body: envelope("rate_limited", "slow"), headers: { "retry-after": date } });
    await client.listJobs(ROUTER_ID);
    const [first, second] = since(start);
    // An HTTP date has whole seconds: the wait is at least the remainder of that second.
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(
      Date.parse(date) - (first?.at ?? 0) - 5,
    );
    await client.close();
  });

  it("survives a 429 storm: waits each Retry-After, then succeeds", async () => {
    const client = makeClient(service.url, { retry: { maxAttempts: 5, baseDelayMs: 10 } });
    const start = service.requests.length;
    service.script(
      ...Array.from({ length: 3 }, () => ({
        status: 429,
        body: envelope("rate_limited", "slow"),
        headers: { "retry-after": "1" },
      })),
    );
    await expect(client.listJobs(ROUTER_ID)).resolves.toEqual(expect.any(Array));
    const times = since(start).map((request) => request.at);
    expect(times).toHaveLength(4);
    for (let i = 1; i < times.length; i++)
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(995);
    await client.close();
  }, 15_000);

  it("gives up with the RateLimitedError when Retry-After outlasts the deadline", async () => {
    const client = makeClient(service.url, { deadlineMs: 1000 });
    const start = service.requests.length;
    service.script({ status: 429, body: envelope("rate_limited", "slow"), headers: { "retry-after": "60" } });
    const error = await client.listJobs(ROUTER_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(60_000);
    expect(since(start)).toHaveLength(1);
    await client.close();
  });

  it("shares a 429's Retry-After with every client of the key through the budget", async () => {
    const dir = tempBudgetDir();
    const first = makeClient(service.url, { budgetDir: dir, retry: { maxAttempts: 1 } });
    service.script({ status: 429, body: envelope("rate_limited", "slow"), headers: { "retry-after": "30" } });
    await expect(first.listJobs(ROUTER_ID)).rejects.toBeInstanceOf(RateLimitedError);
    await first.close(); // writes the release of its slot
    const budget = new RateBudget({
      dir,
      key: tokenFingerprint(TOKEN),
      rateLimit: { count: 60, windowMs: 60_000 },
    });
    const state = await budget.snapshot();
    expect(state.blockedUntil).toBeGreaterThan(Date.now() + 29_000);
    expect(state.grants).toEqual([]); // a 429 does not count against the window
    const second = makeClient(service.url, { budgetDir: dir, deadlineMs: 500 });
    const start = service.requests.length;
    await expect(second.listJobs(ROUTER_ID)).rejects.toMatchObject({ name: "TimeoutError", phase: "budget" });
    expect(since(start)).toHaveLength(0);
    await second.close();
  });
});
