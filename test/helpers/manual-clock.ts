/** A clock the test moves by hand: reboot windows and rate windows pass without real waiting. */
export interface ManualClock {
  now(): Date;
  /** The same time in milliseconds since the epoch, for APIs that take `Date.now`'s shape. */
  nowMs(): number;
  advance(ms: number): void;
}

export function manualClock(start: Date | string = new Date()): ManualClock {
  let now = new Date(start).getTime();
  return {
    now: () => new Date(now),
    nowMs: () => now,
    advance: (ms) => {
      now += ms;
    },
  };
}
