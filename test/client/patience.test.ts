/** Patience (src/client/patience.ts): the one way apply, rollback, the poll and the receiver's wait hold on. */
import { describe, expect, it } from "vitest";
import { ApiError, AuthenticationError, NetworkError, RateLimitedError } from "../../src/client/errors.js";
import { isTransient, patiently, Schedule } from "../../src/client/patience.js";
import { InterruptedError } from "../../src/errors.js";

const network = () => new NetworkError("connection reset", { requestSent: false });

describe("patiently", () => {
  it("repeats a transient failure until the attempt succeeds, handing each attempt the failures so far", async () => {
    const seen: number[] = [];
    const result = await patiently(
      async (failures) => {
        seen.push(failures.length);
        if (failures.length < 2) throw network();
        return "done";
      },
      { deadline: Date.now() + 60_000, schedule: { firstMs: 0, maxMs: 0 } },
    );
    expect(result).toBe("done");
    expect(seen).toEqual([0, 1, 2]);
  });

  it("throws a failure that is not transient at once, as it came", async () => {
    let attempts = 0;
    const refused = new AuthenticationError({ statusCode: 401, message: "token refused" });
    await expect(
      patiently(
        async () => {
          attempts++;
          throw refused;
        },
        { deadline: Date.now() + 60_000, schedule: { firstMs: 0, maxMs: 0 } },
      ),
    ).rejects.toBe(refused);
    expect(attempts).toBe(1);
  });

  it("throws the last failure when the next attempt would start past the deadline", async () => {
    const failure = network();
    await expect(
      patiently(
        async () => {
          throw failure;
        },
        { deadline: Date.now() + 1000, schedule: { firstMs: 3_600_000, maxMs: 3_600_000 } },
      ),
    ).rejects.toBe(failure);
  });

  it("ends a pause the moment its signal aborts, with the signal's reason", async () => {
    const controller = new AbortController();
    const stopped = new InterruptedError("interrupted");
    const waiting = patiently(
      async (failures) => {
        // The first failure starts an hour's pause; the operator stops it during the pause.
        if (failures.length === 0) queueMicrotask(() => setImmediate(() => controller.abort(stopped)));
        throw network();
      },
      {
        deadline: Date.now() + 7_200_000,
        signal: controller.signal,
        schedule: { firstMs: 3_600_000, maxMs: 3_600_000 },
      },
    );
    await expect(waiting).rejects.toBe(stopped);
  });

  it("takes its own rule of what is worth another attempt", async () => {
    let attempts = 0;
    await expect(
      patiently(
        async () => {
          attempts++;
          throw network();
        },
        {
          deadline: Date.now() + 60_000,
          schedule: { firstMs: 0, maxMs: 0 },
          transient: (error) => error instanceof RateLimitedError,
        },
      ),
    ).rejects.toBeInstanceOf(NetworkError);
    expect(attempts).toBe(1);
  });
});

describe("Schedule", () => {
  it("grows to its cap, honours a longer Retry-After, and starts again on request", () => {
    const schedule = new Schedule({ firstMs: 250, maxMs: 1000 });
    expect([schedule.next(), schedule.next(), schedule.next(), schedule.next()]).toEqual([
      250, 500, 1000, 1000,
    ]);
    expect(schedule.next(30_000)).toBe(30_000);
    schedule.restart(100);
    expect([schedule.next(), schedule.next()]).toEqual([100, 200]);
  });

  it("with jitter, draws each pause below the schedule's bound (full jitter)", () => {
    const schedule = new Schedule({ firstMs: 100, maxMs: 400, jitter: true }, () => 0.999);
    expect([schedule.next(), schedule.next(), schedule.next(), schedule.next()]).toEqual([99, 199, 399, 399]);
  });
});

describe("isTransient", () => {
  it("holds for 429, network failures and 5xx, and not for a refused token or a 4xx", () => {
    expect(
      isTransient(new RateLimitedError({ statusCode: 429, message: "slow down", retryAfterMs: 1000 })),
    ).toBe(true);
    expect(isTransient(network())).toBe(true);
    expect(isTransient(new ApiError({ statusCode: 502, message: "bad gateway" }))).toBe(true);
    expect(isTransient(new ApiError({ statusCode: 404, message: "not found" }))).toBe(false);
    expect(isTransient(new AuthenticationError({ statusCode: 401, message: "refused" }))).toBe(false);
    expect(isTransient(new Error("a bug"))).toBe(false);
  });
});
