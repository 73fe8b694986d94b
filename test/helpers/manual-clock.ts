/** A clock the test moves by hand: reboot windows and rate windows pass without real waiting. */
export interface ManualClock {
  now(): Date;
  /** The same time in milliseconds since the epoch, for APIs that take `Date.now`'s shape. */
  nowMs(): number;
  /** Moves the clock; the timers of `after` that come due meanwhile run, in order of their time. */
  advance(ms: number): void;
  /**
   * A sleep on this clock, for code that takes one: it moves the clock by `ms` and returns on the next turn of
   * the event loop, so simulated time passes exactly as fast as the code waits.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * A timer on this clock, for code that takes one: `fire` runs once the clock has been moved `ms` on (at once
   * for `ms` <= 0, on the next turn of the event loop, as `setTimeout` does). Returns a function that cancels it.
   */
  after(ms: number, fire: () => void): () => void;
}

export function manualClock(start: Date | string = new Date()): ManualClock {
  let now = new Date(start).getTime();
  const timers = new Set<{ at: number; fire: () => void }>();
  const runDue = () => {
    for (;;) {
      let next: { at: number; fire: () => void } | undefined;
      for (const timer of timers) if (timer.at <= now && (!next || timer.at < next.at)) next = timer;
      if (!next) return;
      timers.delete(next);
      next.fire();
    }
  };
  const advance = (ms: number) => {
    now += Math.max(0, ms);
    runDue();
  };
  return {
    now: () => new Date(now),
    nowMs: () => now,
    advance,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      advance(ms);
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    },
    after: (ms, fire) => {
      const timer = { at: now + Math.max(0, ms), fire };
      timers.add(timer);
      if (ms <= 0) setImmediate(runDue);
      return () => {
        timers.delete(timer);
      };
    },
  };
}
