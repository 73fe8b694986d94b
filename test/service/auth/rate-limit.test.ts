import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide, MemoryRateLimiter } from "../../../src/service/auth/rate-limiter.js";
import { manualClock } from "../../helpers/manual-clock.js";
import {
  ROUTER_A,
  ROUTER_B,
  startTestService,
  type TestService,
  TOKEN_A,
  TOKEN_A2,
  TOKEN_B,
} from "../harness.js";

describe("sliding-window log (pure)", () => {
  it("never admits more than N in any window, whatever the arrival times", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 10, max: 1000 }),
        fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 200 }),
        (count, windowMs, arrivals) => {
          const limit = { count, windowMs };
          const granted: number[] = [];
          for (const at of [...arrivals].sort((a, b) => a - b)) {
            if (decide(granted, limit, at).allowed) granted.push(at);
          }
          for (const start of granted) {
            expect(granted.filter((at) => at >= start && at < start + windowMs).length).toBeLessThanOrEqual(
              count,
            );
          }
        },
      ),
    );
  });

  it("Retry-After is the whole seconds until the oldest grant leaves the window", () => {
    const limit = { count: 2, windowMs: 60_000 };
    const decision = decide([1000, 30_000], limit, 31_000);
    expect(decision).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 30 });
    // At that moment a request is certain to pass.
    expect(decide([1000, 30_000], limit, 61_001).allowed).toBe(true);
  });

  it("the memory log decides as the pure rule over every grant, and drops what left the window", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 10, max: 1000 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 300 }),
        async (count, windowMs, gaps) => {
          const limit = { count, windowMs };
          const limiter = new MemoryRateLimiter(limit);
          const granted: number[] = [];
          let now = 0;
          for (const gap of gaps) {
            now += gap;
            const expected = decide(granted, limit, now);
            expect(await limiter.take("k", now)).toEqual(expected);
            if (expected.allowed) granted.push(now);
          }
          limiter.close();
        },
      ),
    );
  });

  it("a grant made while the clock stepped back leaves the window no earlier than the newest before it", async () => {
    const limiter = new MemoryRateLimiter({ count: 2, windowMs: 1000 });
    expect((await limiter.take("k", 5000)).allowed).toBe(true);
    // The clock steps back 3 s: the window still holds the grant at 5000; this one is logged at 5000 too.
    expect((await limiter.take("k", 2000)).allowed).toBe(true);
    expect(await limiter.take("k", 2500)).toMatchObject({ allowed: false, retryAfterSeconds: 4 });
    expect((await limiter.take("k", 5999)).allowed).toBe(false);
    expect(await limiter.take("k", 6000)).toMatchObject({ allowed: true, remaining: 1 });
    limiter.close();
  });

  it("refused requests are not logged", async () => {
    const limiter = new MemoryRateLimiter({ count: 1, windowMs: 1000 });
    expect((await limiter.take("k", 0)).allowed).toBe(true);
    for (let at = 100; at < 1000; at += 100) expect((await limiter.take("k", at)).allowed).toBe(false);
    expect((await limiter.take("k", 1000)).allowed).toBe(true);
    limiter.close();
  });
});

describe("rate limit over HTTP (5 per 3 s)", () => {
  let svc: TestService;
  // The windows run on this clock: it stands still unless the test moves it.
  const clock = manualClock();
  beforeAll(async () => {
    svc = await startTestService({ rateLimit: { count: 5, windowMs: 3000 }, tickMs: 60_000 }, undefined, {
      rateLimitClock: clock.nowMs,
    });
  });
  afterAll(async () => svc?.close());

  it("admits exactly N in a window, then 429 with Retry-After; 429s do not count; keys are separate", async () => {
    // The clock stands still: the burst falls inside one window however busy the machine is.
    const path = `/api/routers/${ROUTER_A}/jobs`;
    const answers = [];
    for (let index = 0; index < 8; index++) answers.push(await svc.call("GET", path, { token: TOKEN_A }));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    expect(answers.map((answer) => answer.headers["x-ratelimit-remaining"])).toEqual([
      "4",
      "3",
      "2",
      "1",
      "0",
      "0",
      "0",
      "0",
    ]);
    for (const answer of answers) expect(answer.headers["x-ratelimit-limit"]).toBe("5");
    const refused = answers[5];
    expect(refused?.body.error.code).toBe("rate_limited");
    const retryAfter = Number(refused?.headers["retry-after"]);
    // The whole window: every grant was at this instant.
    expect(retryAfter).toBe(3);
    // Another key of the same team has its own budget.
    expect((await svc.call("GET", path, { token: TOKEN_A2 })).status).toBe(200);
    // A second later the key hammers on: five more 429s, which would fill a window of their own if they counted.
    clock.advance(1000);
    for (let index = 0; index < 5; index++)
      expect((await svc.call("GET", path, { token: TOKEN_A })).status).toBe(429);
    // Until Retry-After has passed the key is refused; then it is admitted again: the 429s did not extend the wait.
    clock.advance(retryAfter * 1000 - 1000 - 1);
    expect((await svc.call("GET", path, { token: TOKEN_A })).status).toBe(429);
    clock.advance(1);
    const again = await svc.call("GET", path, { token: TOKEN_A });
    expect(again.status).toBe(200);
  });

  it("counts refused requests under /api (404, 422, 405) against the key, each with the headers", async () => {
    // Another team's key, with its own untouched budget of 5.
    const answers = [
      await svc.call("GET", "/api/no-such-path", { token: TOKEN_B }),
      await svc.call("GET", "/api", { token: TOKEN_B }),
      await svc.call("POST", `/api/asynchronous/${ROUTER_B}`, { token: TOKEN_B, body: { description: "" } }),
      await svc.call("DELETE", `/api/routers/${ROUTER_B}/jobs`, { token: TOKEN_B }),
      await svc.call("GET", "/api/routers/not-a-uuid/jobs", { token: TOKEN_B }),
      await svc.call("GET", "/api/no-such-path", { token: TOKEN_B }),
    ];
    expect(answers.map((answer) => [answer.status, answer.body.error?.code])).toEqual([
      [404, "not_found"],
      [404, "not_found"],
      [422, "invalid_request"],
      [405, "method_not_allowed"],
      [422, "invalid_request"],
      [429, "rate_limited"],
    ]);
    expect(answers.map((answer) => answer.headers["x-ratelimit-remaining"])).toEqual([
      "4",
      "3",
      "2",
      "1",
      "0",
      "0",
    ]);
    for (const answer of answers) expect(answer.headers["x-ratelimit-limit"]).toBe("5");
  });

  it("unauthenticated requests carry no rate-limit headers", async () => {
    for (const path of [`/api/routers/${ROUTER_A}/jobs`, "/api/no-such-path"]) {
      const answer = await svc.call("GET", path, { token: null });
      // An unknown /api path is no different: the answer does not even say whether the path exists.
      expect(answer.status, path).toBe(401);
      expect(answer.headers["x-ratelimit-limit"], path).toBeUndefined();
    }
  });
});
