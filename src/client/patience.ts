/**
 * Patience: the one way the project waits for something to come right. A deadline, a schedule of pauses that
 * grows, the rule for which failures the next attempt may outlast, and an abort signal that every pause
 * honours at once (Ctrl-C never waits out a pause). The client's own retries (`retry.ts`) decide per request
 * with the same notion of transient; apply, rollback, the job-list poll, the receiver's wait and the rate
 * budget pause through here.
 */
import { setTimeout as delay } from "node:timers/promises";
import { fullJitterMs } from "../platform/backoff.js";
import { ApiError, NetworkError, RateLimitedError, TimeoutError } from "./errors.js";
import { TLS_HANDSHAKE_CODE } from "./http/request-failure.js";

/** Waits `ms`; when the signal aborts first, rejects with the signal's own reason (as a request would). */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  try {
    await delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}

/**
 * A failure the next attempt may well outlast: the service asked us to come back (429), the network failed or
 * timed out, or the server failed (5xx). Anything else (a refused token, bad input, a 404) fails the same way
 * every time.
 */
export function isTransient(error: unknown): boolean {
  return (
    error instanceof RateLimitedError ||
    error instanceof NetworkError ||
    error instanceof TimeoutError ||
    (error instanceof ApiError && error.statusCode >= 500)
  );
}

/**
 * A failure that says the service is not at the address given (connection refused, a host name that does not
 * resolve, a TLS handshake that fails): transient only once the service was reached, since a restart refuses
 * connections for a moment, but on a first contact it is a wrong ROUTERJOBS_URL, a service not started or a CA
 * not trusted, which waiting does not mend.
 */
export function isServiceNotThere(error: unknown): boolean {
  return (
    error instanceof NetworkError &&
    !error.requestSent &&
    error.causeCode !== undefined &&
    (error.causeCode === "ECONNREFUSED" ||
      error.causeCode === "ENOTFOUND" ||
      TLS_HANDSHAKE_CODE.test(error.causeCode))
  );
}

export interface ScheduleSettings {
  /** The first pause. */
  readonly firstMs: number;
  /** The longest pause. */
  readonly maxMs: number;
  /** How much longer each pause is than the one before. @default 2 */
  readonly growth?: number;
  /** Full jitter: each pause a random time below the schedule's (processes that failed together spread). */
  readonly jitter?: boolean;
}

/** A schedule of pauses that grows from `firstMs` to `maxMs`, and starts again on request. */
export class Schedule {
  #current: number;
  #failures = 0;

  constructor(
    private readonly settings: ScheduleSettings,
    private readonly random: () => number = Math.random,
  ) {
    this.#current = settings.firstMs;
  }

  /** The next pause; a server's Retry-After, when given, is the least it may be. */
  next(retryAfterMs?: number): number {
    const { firstMs, maxMs, growth = 2, jitter = false } = this.settings;
    this.#failures++;
    const planned = jitter ? fullJitterMs(this.#failures, firstMs, maxMs, this.random) : this.#current;
    this.#current = Math.min(maxMs, this.#current * growth);
    return Math.max(planned, retryAfterMs ?? 0);
  }

  /** Starts again, from `firstMs` or the pause given. */
  restart(fromMs = this.settings.firstMs): void {
    this.#current = fromMs;
    this.#failures = 0;
  }
}

export interface PatienceOptions {
  /** No attempt starts, and no pause ends, after this time (epoch ms). */
  readonly deadline: number;
  readonly signal?: AbortSignal;
  /** @default 250 ms doubling to 5 s */
  readonly schedule?: ScheduleSettings;
  /** Which failures are worth another attempt. @default isTransient */
  readonly transient?: (error: unknown) => boolean;
}

export const DEFAULT_SCHEDULE: ScheduleSettings = { firstMs: 250, maxMs: 5000 };

/**
 * Runs `attempt` until it succeeds. A failure that is not transient, or after which the next attempt would
 * start past the deadline, is thrown as it came; an abort is thrown as the signal's reason.
 */
export async function patiently<T>(
  attempt: (failures: readonly unknown[]) => Promise<T>,
  options: PatienceOptions,
): Promise<T> {
  const schedule = new Schedule(options.schedule ?? DEFAULT_SCHEDULE);
  const transient = options.transient ?? isTransient;
  const failures: unknown[] = [];
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      return await attempt(failures);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (!transient(error)) throw error;
      const waitMs = schedule.next();
      if (Date.now() + waitMs >= options.deadline) throw error;
      failures.push(error);
      await pause(waitMs, options.signal);
    }
  }
}
