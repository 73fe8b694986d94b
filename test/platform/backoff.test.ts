import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fullJitterMs } from "../../src/platform/backoff.js";

describe("fullJitterMs", () => {
  it("waits within [0, min(max, base * 2^(retry - 1))), whatever the random draw", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 600_000 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (retry, base, max, draw) => {
          const wait = fullJitterMs(retry, base, max, () => draw);
          const ceiling = Math.min(max, base * 2 ** Math.min(retry - 1, 30));
          expect(wait).toBeGreaterThanOrEqual(0);
          expect(wait).toBeLessThan(Math.max(1, ceiling));
        },
      ),
    );
  });

  it("gives the first retry the base as its bound, the next twice that, up to the cap", () => {
    const top = () => 0.999_999;
    expect(fullJitterMs(1, 100, 10_000, top)).toBe(99);
    expect(fullJitterMs(2, 100, 10_000, top)).toBe(199);
    expect(fullJitterMs(40, 100, 10_000, top)).toBe(9_999);
  });
});
