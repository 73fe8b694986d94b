/** A clock the test moves by hand: reboot windows and rate windows pass without real waiting. */
export interface ManualClock {
  now(): Date;
  /** The same time in milliseconds since the epoch, for APIs that take `Date.now`'s shape. */
  nowMs(): number;
  advance(ms: number): void;
  /**
   * A sleep on this clock, for code that takes one: it moves the clock by `ms` and returns on the next turn of
   * the event loop, so simulated time passes exactly as fast as the code waits.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function manualClock(start: Date | string = new Date()): ManualClock {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    nowMs: () => now,
    advance: (ms) => {
      now += ms;
    },
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      now += Math.max(0, ms);
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    },
  };
}
