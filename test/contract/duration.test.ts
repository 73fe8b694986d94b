import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration, parseRateLimit } from "../../src/contract/index.js";

describe("durations and rate settings", () => {
  it("parses the units the CLI documents", () => {
    expect(parseDuration("250ms")).toBe(250);
    expect(parseDuration("1s")).toBe(1000);
    expect(parseDuration("1m")).toBe(60_000);
    expect(parseDuration("1.5s")).toBe(1500);
    expect(parseRateLimit("60/1m")).toEqual({ count: 60, windowMs: 60_000 });
  });

  it("round-trips whole durations through formatDuration", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });

  it("names the setting and the bad value", () => {
    expect(() => parseDuration("10", "--tick")).toThrow(
      '--tick must be a number followed by ms, s, m or h, like 250ms or 1m (got "10")',
    );
    expect(() => parseDuration("0s", "--tick")).toThrow('--tick must be greater than zero (got "0s")');
    expect(() => parseRateLimit("0/1m")).toThrow(
      'rate limit count must be a whole number of at least 1 (got "0")',
    );
    expect(() => parseRateLimit("sixty")).toThrow("rate limit must look like COUNT/DURATION");
  });
});
