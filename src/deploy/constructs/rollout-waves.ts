import { describeValue } from "../../contract/index.js";
import { ConstructValidationError } from "./errors.js";

/**
 * One wave boundary: a count of routers (`1`, `5`) or a percentage of the fleet (`"10%"`, `"2.5%"`), both
 * cumulative and counted in fleet order.
 */
export type WaveBoundary = number | `${number}%`;

/**
 * How a fleet is split into waves: cumulative boundaries in fleet order (`[1, "10%", "100%"]`), or a function
 * giving each router its wave number (1 runs first).
 */
export type WaveSpec<R> = readonly WaveBoundary[] | ((router: R, index: number) => number);

type Problem = { field: string; message: string };

/** A parsed boundary: percentages in hundredths of a percent, so that rounding is exact integer arithmetic. */
type Parsed =
  | { readonly kind: "count"; readonly count: number }
  | { readonly kind: "percent"; readonly basis: number };

const PERCENT = /^(\d{1,3})(?:\.(\d{1,2}))?%$/;
const FULL_BASIS = 10_000;

/**
 * The routers of each wave, as indexes into `routers`, in wave order; every router is in exactly one wave and
 * no wave is empty. Throws a ConstructValidationError naming `rollout.waves` and the limit.
 *
 * List rule: entry i ends wave i at boundary b(i) routers from the start of the fleet: a count c gives
 * min(c, n), a percentage p gives ceil(p x n / 100), so a non-zero percentage of a non-empty fleet holds at
 * least one router. A boundary not past the previous one adds no wave (rounding on a small fleet collapses
 * `1` and `"10%"` into one wave), and the last entry must cover the whole fleet (`"100%"`, or a count of at
 * least the fleet's size), so that no router is left out by accident.
 *
 * Function rule: the function's value is the router's wave; it must be an integer >= 1. Numbers no router
 * has are skipped (waves 1 and 3 make two waves).
 */
export function assignWaves<R>(path: string, routers: readonly R[], spec: WaveSpec<R>): number[][] {
  return typeof spec === "function"
    ? byFunction(path, routers, spec)
    : byBoundaries(path, routers.length, spec);
}

function byBoundaries(path: string, size: number, spec: readonly WaveBoundary[]): number[][] {
  const parsed = parseBoundaries(path, spec);
  const boundaries = parsed.map((entry) =>
    entry.kind === "count" ? Math.min(entry.count, size) : Math.ceil((entry.basis * size) / FULL_BASIS),
  );
  const last = boundaries.at(-1) ?? 0;
  if (last < size) {
    fail(path, [
      {
        field: "rollout.waves",
        message: `must end with "100%" or a count of at least the fleet's ${size} routers, so that every router is in a wave (the last entry ${describeValue(spec.at(-1))} covers ${last})`,
      },
    ]);
  }
  const waves: number[][] = [];
  let start = 0;
  for (const end of boundaries) {
    if (end <= start) continue;
    waves.push(range(start, end));
    start = end;
  }
  return waves;
}

/** Checks every entry on its own and against the previous entry of its kind; reports every broken one. */
function parseBoundaries(path: string, spec: readonly WaveBoundary[]): Parsed[] {
  if (!Array.isArray(spec) || spec.length === 0) {
    fail(path, [
      { field: "rollout.waves", message: `must list at least one wave (got ${describeValue(spec)})` },
    ]);
  }
  const problems: Problem[] = [];
  const parsed: Parsed[] = [];
  const previous: { count?: number; percent?: number } = {};
  spec.forEach((entry, index) => {
    const field = `rollout.waves[${index}]`;
    const result = parseOne(entry);
    if (typeof result === "string") {
      problems.push({ field, message: `${result} (got ${describeValue(entry)})` });
      return;
    }
    const value = result.kind === "count" ? result.count : result.basis;
    const before = result.kind === "count" ? previous.count : previous.percent;
    if (before !== undefined && value <= before) {
      problems.push({
        field,
        message: `must be larger than the ${result.kind === "count" ? "count" : "percentage"} before it: boundaries are cumulative and increasing (got ${describeValue(entry)})`,
      });
    }
    if (result.kind === "count") previous.count = value;
    else previous.percent = value;
    parsed.push(result);
  });
  if (problems.length > 0) fail(path, problems);
  return parsed;
}

/** The parsed entry, or what is wrong with it. */
function parseOne(entry: unknown): Parsed | string {
  if (typeof entry === "number") {
    return Number.isSafeInteger(entry) && entry >= 1
      ? { kind: "count", count: entry }
      : "must be a whole count of at least 1 router";
  }
  const match = typeof entry === "string" ? PERCENT.exec(entry) : null;
  if (!match) return 'must be a count of routers or a percentage like "10%" (at most two decimals)';
  const basis = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  if (basis === 0) return "must be more than 0%";
  if (basis > FULL_BASIS) return "must be at most 100%";
  return { kind: "percent", basis };
}

function byFunction<R>(
  path: string,
  routers: readonly R[],
  wave: (router: R, index: number) => number,
): number[][] {
  const problems: Problem[] = [];
  const byNumber = new Map<number, number[]>();
  routers.forEach((router, index) => {
    const value = wave(router, index);
    if (!Number.isSafeInteger(value) || value < 1) {
      const name = (router as { name?: unknown }).name;
      problems.push({
        field: "rollout.waves",
        message: `must return a whole wave number of at least 1 for every router (got ${describeValue(value)} for ${typeof name === "string" ? name : `router ${index}`})`,
      });
      return;
    }
    byNumber.set(value, [...(byNumber.get(value) ?? []), index]);
  });
  if (problems.length > 0) fail(path, problems);
  return [...byNumber.entries()].sort(([a], [b]) => a - b).map(([, members]) => members);
}

function range(start: number, end: number): number[] {
  return Array.from({ length: end - start }, (_, offset) => start + offset);
}

function fail(path: string, problems: Problem[]): never {
  throw new ConstructValidationError(path, problems);
}
