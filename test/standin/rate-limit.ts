/**
 * Per-token sliding-window log: at most `max` grants in any `windowMs`. A refused request is not counted,
 * as Laravel's throttle does not count the attempts it turns away.
 */
export class SlidingWindow {
  private readonly grants = new Map<string, number[]>();

  constructor(
    readonly max: number,
    private readonly windowMs: number,
  ) {}

  take(key: string, now = Date.now()): { granted: boolean; remaining: number; retryAfterS: number } {
    const recent = (this.grants.get(key) ?? []).filter((at) => at > now - this.windowMs);
    this.grants.set(key, recent);
    if (recent.length >= this.max) {
      const oldest = recent[0] ?? now;
      return {
        granted: false,
        remaining: 0,
        retryAfterS: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)),
      };
    }
    recent.push(now);
    return { granted: true, remaining: this.max - recent.length, retryAfterS: 0 };
  }
}
