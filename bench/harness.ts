import { readFile } from "node:fs/promises";
import type { Pool } from "undici";

/** What a `bench/*.bench.ts` module exports: `run()` measures and returns figures plus printable lines. */
export interface BenchReport {
  readonly title: string;
  /** Named figures (numbers with units in their names: `p50Ms`, `opsPerSec`, `ratio`). */
  readonly metrics: Record<string, number | string | boolean>;
  /** Human-readable lines for the console. */
  readonly lines: readonly string[];
  readonly file?: string;
  readonly seconds?: number;
  /** When and on which Node the report was measured (results.json keeps reports from several runs). */
  readonly date?: string;
  readonly node?: string;
}

export interface BenchModule {
  run(): Promise<BenchReport>;
}

/** Calls `fn` until `minMs` has passed (at least `minIterations` times) and returns operations per second. */
export async function opsPerSecond(fn: () => unknown, minMs = 1000, minIterations = 5): Promise<number> {
  let iterations = 0;
  const start = performance.now();
  while (performance.now() - start < minMs || iterations < minIterations) {
    await fn();
    iterations++;
  }
  return iterations / ((performance.now() - start) / 1000);
}

export function percentile(sortedOrNot: readonly number[], p: number): number {
  const sorted = [...sortedOrNot].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The most timestamps (sorted, ms) that fall in any window of `windowMs`: what a sliding-window limit checks. */
export function maxInAnyWindow(sorted: readonly number[], windowMs: number): number {
  let max = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= windowMs) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}

/** Resident memory of a process in MiB, from /proc (Linux); undefined elsewhere. */
export async function rssMiB(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** Awaits a Terraform step of a bench; a failure throws with the end of its output, where the reason is. */
export async function mustSucceed(step: Promise<{ code: number | null; output: string }>): Promise<void> {
  const { code, output } = await step;
  if (code !== 0) throw new Error(`terraform failed (exit ${code}):\n${output.slice(-4000)}`);
}

/** One GET on `pool`, its body read whole; its time in ms. Anything but 200 fails the bench. */
export async function timedGet(pool: Pool, path: string, headers: Record<string, string>): Promise<number> {
  const at = performance.now();
  const response = await pool.request({ method: "GET", path, headers });
  await response.body.dump();
  if (response.statusCode !== 200) throw new Error(`${path}: HTTP ${response.statusCode}`);
  return performance.now() - at;
}
