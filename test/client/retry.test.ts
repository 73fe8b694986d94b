import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ApiError,
  BadResponseError,
  backoffMs,
  NetworkError,
  type Operation,
  parseRetryAfter,
  RateLimitedError,
  shouldRetry,
  TimeoutError,
  ValidationError,
} from "../../src/client/index.js";
import type { RouterjobsError } from "../../src/errors.js";

const settings = { baseDelayMs: 100, maxDelayMs: 1000 };
const refused = new NetworkError("refused", { requestSent: false, causeCode: "ECONNREFUSED" });
const dropped = new NetworkError("dropped", { requestSent: true, causeCode: "UND_ERR_SOCKET" });
const slow = new TimeoutError("slow", { phase: "response", requestSent: true });
const connectTimeout = new TimeoutError("connect", {
  phase: "connect",
  requestSent: false,
  causeCode: "UND_ERR_CONNECT_TIMEOUT",
});
const badCert = new NetworkError("cert", {
  requestSent: false,
  causeCode: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
});
const limited = new RateLimitedError({ statusCode: 429, message: "slow down", retryAfterMs: 1000 });
const maintenance = new ApiError({ statusCode: 503, message: "maintenance", retryAfterMs: 5000 });
const unavailable = new ApiError({ statusCode: 503, message: "down" });
const serverError = new ApiError({ statusCode: 500, message: "boom" });
const notFound = new ApiError({ statusCode: 404, message: "no router" });
const malformed = new BadResponseError({ statusCode: 502, message: "html" });
const invalid = new ValidationError([{ field: "script", message: "too long" }]);

const decide = (operation: Operation, error: RouterjobsError, attempt = 1) =>
  shouldRetry({ operation, attempt, maxAttempts: 5, error });

describe("shouldRetry", () => {
  it("never retries a synchronous command", () => {
    for (const error of [refused, dropped, slow, limited, maintenance, serverError])
      expect(decide("execute", error)).toBe(false);
  });

  it("retries a submission only when it provably did not reach the service, or the service asked", () => {
    expect(decide("submit", refused)).toBe(true);
    expect(decide("submit", connectTimeout)).toBe(true);
    expect(decide("submit", limited)).toBe(true);
    expect(decide("submit", maintenance)).toBe(true);
    expect(decide("submit", dropped)).toBe(false);
    expect(decide("submit", slow)).toBe(false);
    expect(decide("submit", unavailable)).toBe(false);
    expect(decide("submit", serverError)).toBe(false);
  });

  it("retries a list on network errors, timeouts, 429 and 5xx, not on 4xx or a malformed body", () => {
    for (const error of [refused, dropped, slow, limited, maintenance, unavailable, serverError])
      expect(decide("list", error)).toBe(true);
    for (const error of [notFound, malformed, invalid, badCert]) expect(decide("list", error)).toBe(false);
  });

  it("never retries a certificate the client does not trust", () => {
    expect(decide("submit", badCert)).toBe(false);
  });

  it("stops at maxAttempts", () => {
    expect(decide("list", refused, 4)).toBe(true);
    expect(decide("list", refused, 5)).toBe(false);
  });
});

describe("backoffMs", () => {
  it("stays within full-jitter bounds and under the cap", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (attempt, r) => {
          const wait = backoffMs(attempt, undefined, settings, () => r);
          expect(wait).toBeGreaterThanOrEqual(0);
          expect(wait).toBeLessThanOrEqual(
            Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1)),
          );
        },
      ),
    );
  });

  it("honours Retry-After in full, even beyond the cap", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3_600_000 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (after, r) => {
          const wait = backoffMs(3, after, settings, () => r);
          expect(wait).toBeGreaterThanOrEqual(after);
          expect(wait).toBeLessThan(after + settings.baseDelayMs);
        },
      ),
    );
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-22T17:00:00Z");

  it("reads delay-seconds and HTTP dates", () => {
    expect(parseRetryAfter("120", undefined, now)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", undefined, now)).toBe(0);
    expect(parseRetryAfter("Sun, 22 Nov 2026 17:00:30 GMT", undefined, now)).toBe(30_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 16:00:00 GMT", undefined, now)).toBe(0);
  });

  it("reads a date against the response's own Date header, whatever our clock says", () => {
    const anHourAhead = new Date(now + 3600_000);
    const retryAt = new Date(anHourAhead.getTime() + 30_000).toUTCString();
    expect(parseRetryAfter(retryAt, anHourAhead.toUTCString(), now)).toBe(30_000);
    expect(parseRetryAfter(retryAt, "not a date", anHourAhead.getTime())).toBe(30_000);
    expect(parseRetryAfter("120", anHourAhead.toUTCString(), now)).toBe(120_000);
  });

  it("ignores what is neither", () => {
    expect(parseRetryAfter(undefined, undefined, now)).toBeUndefined();
    expect(parseRetryAfter("-5", undefined, now)).toBeUndefined();
    expect(parseRetryAfter("1.5", undefined, now)).toBeUndefined();
    expect(parseRetryAfter("soon", undefined, now)).toBeUndefined();
  });

  it("round-trips any whole number of seconds and any date", () => {
    fc.assert(
      fc.property(fc.nat(1e9), (seconds) => {
        expect(parseRetryAfter(String(seconds), undefined, now)).toBe(seconds * 1000);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), (seconds) => {
        expect(parseRetryAfter(new Date(now + seconds * 1000).toUTCString(), undefined, now)).toBe(
          seconds * 1000,
        );
      }),
    );
  });
});
