/**
 * Polling a condition with a deadline: the one way tests wait for a state they cannot subscribe to (a row in
 * a database, a line of a child's output, a job's status behind HTTP). A fixed sleep in its place either waits
 * too long or not long enough on a loaded machine; this waits exactly until the condition holds, and when it
 * never does it fails naming what it waited for and what it saw last.
 */

/**
 * How long a test waits for a condition or an event unless it says otherwise: a deadline for a broken build,
 * never a performance bound. With a second suite on the two cores, a job queued behind a stopped one took over
 * 10 s, a service's start over 60 s, and a client's wait to retry a 503 over 10 s to begin (vitest.config.ts
 * gives the policy).
 */
export const CONDITION_DEADLINE_MS = 120_000;

export interface WaitForOptions {
  /** What is awaited, for the failure message: "job 3 to complete". */
  readonly what: string;
  /** How long the condition may take; a deadline for a broken build, not a performance bound. */
  readonly timeoutMs?: number;
  /** Pause between checks. */
  readonly intervalMs?: number;
  /** What the test saw, added to the failure message (the last job row, the output so far). */
  readonly detail?: () => string;
}

/**
 * Resolves with the first value of `check` that is neither undefined nor false; rejects after `timeoutMs`,
 * or at once with the error when `check` throws one (a child that exited, a refused request).
 */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { what, timeoutMs = CONDITION_DEADLINE_MS, intervalMs = 25, detail }: WaitForOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) {
      const seen = detail ? `; last seen: ${detail()}` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen}`);
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now()))),
    );
  }
}

/**
 * `promise`'s outcome, or a failure naming `what` when it has not settled after `timeoutMs`. For an event that
 * must come long before a competing one (a long poll released at shutdown rather than after its 60 s): the
 * deadline sits far from both, so it tells the two apart without measuring how fast the first one was. Without
 * a competing event, the suite's deadline for a condition.
 */
export async function within<T>(
  promise: Promise<T>,
  { what, timeoutMs = CONDITION_DEADLINE_MS }: WaitForOptions,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether `promise` has settled by the time the event loop runs its next macrotask: true for work that ends
 * without waiting on a timer or I/O (a wake already kept, a released waiter), false for work still waiting.
 * An ordering fact, not a duration, so a loaded machine cannot make it flaky.
 */
export async function settlesWithoutWaiting(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol("still waiting");
  const first = await Promise.race([promise, new Promise((resolve) => setImmediate(() => resolve(marker)))]);
  return first !== marker;
}
