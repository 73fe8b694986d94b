import { setTimeout as delay } from "node:timers/promises";

/** Waits `ms`; when the signal aborts first, rejects with the signal's own reason (as a request would). */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}
