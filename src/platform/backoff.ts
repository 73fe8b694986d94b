/**
 * Full jitter (AWS architecture blog): the wait before retry `retry` (1 for the first) is a random time in
 * [0, min(max, base * 2^(retry - 1))). The one backoff of the project: the client's retries and the service's
 * notification retries both use it.
 */
export function fullJitterMs(
  retry: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, retry - 1), 30));
  return Math.floor(random() * ceiling);
}
