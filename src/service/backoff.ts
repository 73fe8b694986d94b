/** Full jitter (AWS architecture blog): a random wait in [0, min(max, base * 2^attempt)). */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}
