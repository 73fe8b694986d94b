import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkError, RateBudget, RateLimitedError } from "../../src/client/index.js";
import { tokenFingerprint } from "../../src/contract/token.js";
import { within } from "../helpers/wait-for.js";
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

/**
 * The client's own account of its retries (its debug log): when it decided to retry and the wait it chose. A
 * test waits for the decision instead of sleeping, and checks the wait the client computed, not the wall time.
 */
function retryLog() {
  const retries: { at: number; waitMs: number }[] = [];
  let onRetry = () => {};
  const first = new Promise<void>((resolve) => {
    onRetry = resolve;
  });
  return {
    retries,
    first,
    logger: {
      debug(message: string, fields?: Record<string, unknown>) {
        if (!message.startsWith("retrying ")) return;
        retries.push({ at: Date.now(), waitMs: fields?.waitMs as number });
        onRetry();
      },
    },
  };
}

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
    const log = retryLog();
    const client = makeClient(`http://127.0.0.1:${port}`, {
      // Attempts for 40 s or more: the stand-in's start on a loaded machine, not the count, ends the refusals.
      retry: { baseDelayMs: 200, maxDelayMs: 400, maxAttempts: 100 },
      deadlineMs: 120_000,
      logger: log.logger,
    });
    const submitted = client.submitJob(ROUTER_ID, JOB);
    // The first attempt has been refused and the client is waiting to retry: now the service comes up.
    await within(log.first, { what: "the client to retry the refused submission" });
    const revived = await startStandIn({ port });
    const { idempotencyKey } = await submitted;
    expect(revived.requests.map((request) => request.headers["idempotency-key"])).toEqual([idempotencyKey]);
    await client.close();
    await revived.close();
  });

  it("honours Retry-After given as an HTTP date in full", async () => {
    const log = retryLog();
    const client = makeClient(service.url, { logger: log.logger });
    const start = service.requests.length;
    const date = new Date(Date.now() + 2000).toUTCString();
    service.script({ status: 429, body: envelope("rate_limited", "slow"), headers: { "retry-after": date } });
    await client.listJobs(ROUTER_ID);
    expect(since(start)).toHaveLength(2);
    // The wait it chose reaches the date in full (an HTTP date has whole seconds), beyond maxDelayMs (50 ms):
    // a computed wait on this machine's clock, not a measured one.
    expect(log.retries).toHaveLength(1);
    const [retry] = log.retries as [{ at: number; waitMs: number }];
    expect(retry.at + retry.waitMs).toBeGreaterThanOrEqual(Date.parse(date));
    await client.close();
  });

  it("survives a 429 storm: waits each Retry-After, then succeeds", async () => {
    const log = retryLog();
    const client = makeClient(service.url, {
      retry: { maxAttempts: 5, baseDelayMs: 10 },
      logger: log.logger,
    });
    const start = service.requests.length;
    service.script(
      ...Array.from({ length: 3 }, () => ({
        status: 429,
        body: envelope("rate_limited", "slow"),
        headers: { "retry-after": "1" },
      })),
    );
    await expect(client.listJobs(ROUTER_ID)).resolves.toEqual(expect.any(Array));
    expect(since(start)).toHaveLength(4);
    // Each retry waits its Retry-After of 1 s in full (plus jitter), far beyond the 10 ms backoff it would
    // otherwise use: the wait the client computed, not a measured one.
    expect(log.retries).toHaveLength(3);
    for (const retry of log.retries) expect(retry.waitMs).toBeGreaterThanOrEqual(1000);
    await client.close();
  });

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
    // Blocked for the 30 s Retry-After from the 429 on (checked with room for a slow machine since then)
    expect(state.blockedUntil).toBeGreaterThan(Date.now() + 20_000);
    expect(state.grants).toEqual([]); // a 429 does not count against the window
    const second = makeClient(service.url, { budgetDir: dir, deadlineMs: 500 });
    const start = service.requests.length;
    await expect(second.listJobs(ROUTER_ID)).rejects.toMatchObject({ name: "TimeoutError", phase: "budget" });
    expect(since(start)).toHaveLength(0);
    await second.close();
  });
});
