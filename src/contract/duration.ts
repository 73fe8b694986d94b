/**
 * Durations and rate settings as the CLI and the contract write them: `250ms`, `1s`, `1m`, `60/1m`.
 */
import { UsageError } from "../errors.js";

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string, setting = "duration"): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (!match) {
    throw new UsageError(
      `${setting} must be a number followed by ms, s, m or h, like 250ms or 1m (got ${JSON.stringify(text)})`,
    );
  }
  const ms = Number(match[1]) * (UNITS_MS[match[2] as string] as number);
  if (!(ms > 0) || !Number.isFinite(ms))
    throw new UsageError(`${setting} must be greater than zero (got ${JSON.stringify(text)})`);
  return Math.round(ms);
}

export interface RateLimit {
  /** Requests admitted in any window. */
  readonly count: number;
  readonly windowMs: number;
}

export function parseRateLimit(text: string, setting = "rate limit"): RateLimit {
  const match = /^(\d+)\/(.+)$/.exec(text.trim());
  if (!match)
    throw new UsageError(
      `${setting} must look like COUNT/DURATION, like 60/1m (got ${JSON.stringify(text)})`,
    );
  const count = Number(match[1]);
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new UsageError(
      `${setting} count must be a whole number of at least 1 (got ${JSON.stringify(match[1])})`,
    );
  }
  return { count, windowMs: parseDuration(match[2] as string, `${setting} window`) };
}

export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
