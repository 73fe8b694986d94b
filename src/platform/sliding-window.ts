/**
 * A sliding-window log of admissions per key: the service's per-key API budget, the portal's sign-in limits and
 * a simulated device's login throttle all count with it.
 */

/** At most `count` admissions in any `windowMs`. */
export interface WindowLimit {
  readonly count: number;
  readonly windowMs: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests still admitted in the current window after this one. */
  readonly remaining: number;
  /** When refused: whole seconds until a request is certain to be accepted. */
  readonly retryAfterSeconds?: number;
}

export interface RateLimiter {
  take(key: string, now: number): Promise<RateDecision>;
  close?(): void;
}

/**
 * Sliding-window log: a request is admitted when fewer than `count` requests were admitted in the last
 * `windowMs`. Unlike a token bucket it never admits more than `count` in any window. Refused requests are not
 * logged, so a client hammering at a 429 does not extend its own wait.
 */
export function decide(grants: readonly number[], limit: WindowLimit, now: number): RateDecision {
  const live = grants.filter((at) => at > now - limit.windowMs);
  return decideLive(live.length, (index) => live[index] as number, limit, now);
}

/** `decide` over the window's grants, oldest first: `live` of them, the `index`th given by `grant`. */
function decideLive(
  live: number,
  grant: (index: number) => number,
  limit: WindowLimit,
  now: number,
): RateDecision {
  if (live < limit.count) {
    return { allowed: true, limit: limit.count, remaining: limit.count - live - 1 };
  }
  // The request is certain to pass once the oldest grant that keeps the window full has left it.
  const freeAt = grant(live - limit.count) + limit.windowMs;
  return {
    allowed: false,
    limit: limit.count,
    remaining: 0,
    retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now) / 1000)),
  };
}

/**
 * A key's grants, oldest first, from `start` on: those before it have left the window. Dropping them from the
 * front costs nothing per request, where filtering the log cost the whole window's grants per request (a
 * service configured for thousands a minute filtered thousands of numbers twice for each).
 */
interface GrantLog {
  grants: number[];
  start: number;
}

/** One instance's log in memory (PGlite: one process per data directory). */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, GrantLog>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limit: WindowLimit,
    /** The clock `take` is given, so the sweep forgets by the same time. */
    clock: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(clock()), Math.max(1000, limit.windowMs)).unref();
  }

  async take(key: string, now: number): Promise<RateDecision> {
    let log = this.logs.get(key);
    if (!log) {
      log = { grants: [], start: 0 };
      this.logs.set(key, log);
    }
    const horizon = now - this.limit.windowMs;
    while (log.start < log.grants.length && (log.grants[log.start] as number) <= horizon) log.start++;
    // The dropped front is let go once it is most of the array.
    if (log.start > 64 && log.start * 2 > log.grants.length) {
      log.grants = log.grants.slice(log.start);
      log.start = 0;
    }
    const { grants, start } = log;
    const decision = decideLive(
      grants.length - start,
      (index) => grants[start + index] as number,
      this.limit,
      now,
    );
    // A clock that steps back records the grant at the newest time seen: the log stays in order, and the grant
    // leaves the window no earlier than it would have (never more admitted than the limit).
    if (decision.allowed) grants.push(Math.max(now, grants[grants.length - 1] ?? now));
    return decision;
  }

  private sweep(now: number): void {
    for (const [key, log] of this.logs) {
      if ((log.grants[log.grants.length - 1] ?? 0) <= now - this.limit.windowMs) this.logs.delete(key);
    }
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
