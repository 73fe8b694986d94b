import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConstructValidationError } from "../../../src/deploy/constructs/index.js";
import { assignWaves, type WaveBoundary } from "../../../src/deploy/constructs/rollout-waves.js";

const fleet = (size: number) => Array.from({ length: size }, (_, index) => ({ name: `r${index + 1}` }));
const sizes = (waves: number[][]) => waves.map((wave) => wave.length);
const assign = (size: number, spec: readonly WaveBoundary[]) =>
  assignWaves("office/fleet", fleet(size), spec);

describe("assignWaves with boundaries", () => {
  it("splits [1, 10%, 100%] on fleets of 1, 3 and 200 routers", () => {
    // GIVEN a canary, ten percent, then the rest
    const spec: WaveBoundary[] = [1, "10%", "100%"];
    // THEN one router is one wave (every boundary collapses into it)
    expect(assign(1, spec)).toEqual([[0]]);
    // AND on 3 routers ceil(10% x 3) = 1 adds nothing after the canary: two waves
    expect(assign(3, spec)).toEqual([[0], [1, 2]]);
    // AND on 200 routers: 1, up to ceil(20) = 20, then the remaining 180, in fleet order
    const waves = assign(200, spec);
    expect(sizes(waves)).toEqual([1, 19, 180]);
    expect(waves.flat()).toEqual(fleet(200).map((_, index) => index));
  });

  it("rounds percentages up, so a non-zero percentage always holds a router", () => {
    expect(sizes(assign(3, ["50%", "100%"]))).toEqual([2, 1]);
    expect(sizes(assign(3, ["1%", "100%"]))).toEqual([1, 2]);
    expect(sizes(assign(200, ["2.5%", "100%"]))).toEqual([5, 195]);
    // 33.33% of 3 is 0.9999: exact arithmetic rounds it to 1, not to 2
    expect(sizes(assign(3, ["33.33%", "100%"]))).toEqual([1, 2]);
  });

  it("caps counts at the fleet's size and accepts a final count that covers it", () => {
    expect(sizes(assign(3, [1, 5, "100%"]))).toEqual([1, 2]);
    expect(sizes(assign(4, [2, 4]))).toEqual([2, 2]);
  });

  it("makes no wave for an empty fleet", () => {
    expect(assign(0, [1, "100%"])).toEqual([]);
  });

  it.each([
    [[], /rollout\.waves must list at least one wave \(got an array\)/],
    [[0, "100%"], /rollout\.waves\[0\] must be a whole count of at least 1 router \(got number 0\)/],
    [[1.5, "100%"], /rollout\.waves\[0\] must be a whole count of at least 1 router \(got number 1\.5\)/],
    [["0%", "100%"], /rollout\.waves\[0\] must be more than 0% \(got "0%"\)/],
    [[1, "101%"], /rollout\.waves\[1\] must be at most 100% \(got "101%"\)/],
    [["ten%"], /rollout\.waves\[0\] must be a count of routers or a percentage like "10%"/],
    [[5, 2, "100%"], /rollout\.waves\[1\] must be larger than the count before it/],
    [["50%", "20%", "100%"], /rollout\.waves\[1\] must be larger than the percentage before it/],
    [
      [1, "10%"],
      /rollout\.waves must end with "100%" or a count of at least the fleet's 200 routers.*covers 20/,
    ],
  ] as [WaveBoundary[], RegExp][])(
    "refuses %j with a message naming the field and the limit",
    (spec, message) => {
      expect(() => assign(200, spec)).toThrow(ConstructValidationError);
      expect(() => assign(200, spec)).toThrow(message);
    },
  );

  it("lists every broken entry at once", () => {
    expect(() => assign(10, [0, "0%", "100%"])).toThrow(
      'office/fleet: rollout.waves[0] must be a whole count of at least 1 router (got number 0); rollout.waves[1] must be more than 0% (got "0%")',
    );
  });

  it("puts every router in exactly one non-empty wave, in fleet order (property)", () => {
    const boundary = fc.oneof(
      fc.integer({ min: 1, max: 300 }),
      fc.integer({ min: 1, max: 10_000 }).map((basis) => `${basis / 100}%` as WaveBoundary),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.array(boundary, { maxLength: 5 }), (size, entries) => {
        // Strictly increasing per kind, as validation requires, then 100% to cover the fleet (a generated 100% or
        // more is left out: nothing may follow the entry that covers the fleet).
        const below100 = entries.filter(
          (entry) => typeof entry === "number" || Number.parseFloat(entry) < 100,
        );
        const spec = increasingPerKind([...below100, "100%"]);
        const waves = assign(size, spec);
        expect(waves.flat()).toEqual(fleet(size).map((_, index) => index));
        expect(waves.every((wave) => wave.length > 0)).toBe(true);
        expect(waves.length).toBeLessThanOrEqual(spec.length);
      }),
    );
  });
});

describe("assignWaves with a function", () => {
  it("orders waves by number and skips numbers no router has", () => {
    const routers = fleet(5);
    const waves = assignWaves("office/fleet", routers, (router) => (router.name === "r4" ? 1 : 7));
    expect(waves).toEqual([[3], [0, 1, 2, 4]]);
  });

  it.each([1.5, 0, -1, Number.NaN])("refuses a function returning %s, naming the router", (value) => {
    expect(() =>
      assignWaves("office/fleet", fleet(3), (router) => (router.name === "r2" ? value : 1)),
    ).toThrow(
      new RegExp(
        `rollout\\.waves must return a whole wave number of at least 1 for every router \\(got number ${value}.* for r2\\)`,
      ),
    );
  });
});

/** Drops entries that are not larger than the previous entry of their kind. */
function increasingPerKind(spec: readonly WaveBoundary[]): WaveBoundary[] {
  let count = 0;
  let percent = 0;
  return spec.filter((entry) => {
    if (typeof entry === "number") {
      if (entry <= count) return false;
      count = entry;
      return true;
    }
    const value = Number.parseFloat(entry);
    if (value <= percent) return false;
    percent = value;
    return true;
  });
}
