import { setTimeout as sleep } from "node:timers/promises";
import type { RouterJobsClient } from "../client/client.js";
import { ApiError, NetworkError, RateLimitedError, TimeoutError } from "../client/errors.js";
import type { JobListItem } from "../contract/envelope.js";
import { isTerminal } from "../contract/job.js";

/**
 * Polling the job list, adaptively: soon after submission (an express job is usually done within a second),
 * then slower while nothing changes, faster again after a change. Every request goes through the client's
 * shared rate budget, so ten provisioners polling at once still stay within the key's 60 per minute.
 */
export interface PollOptions {
  readonly routerId: string;
  /** Which listed job is the one awaited. */
  readonly match: JobMatch;
  /** Epoch ms. */
  readonly deadline: number;
  /** Delay before the first look and after a change. @default 1000 */
  readonly firstDelayMs?: number;
  /** @default 15000 */
  readonly maxDelayMs?: number;
  readonly signal?: AbortSignal;
  readonly onUpdate?: (job: JobListItem) => void;
  /**
   * The list leaves deleted jobs out (the sites API, `sdx`): a job listed before and gone now was deleted.
   * Without this, such a job would be awaited until the deadline. @default false
   */
  readonly vanishedIsDeleted?: boolean;
}

/** The reason given for a job the sites API stopped listing. */
export const VANISHED_REASON =
  "the sites API no longer lists the job: it was deleted (that API leaves deleted jobs out of its list)";

const GROWTH = 1.6;
const LAST_LOOK_MS = 2000;

/** The job as last seen: terminal, or not yet when the deadline came (undefined when never listed). */
export async function pollJob(
  client: RouterJobsClient,
  options: PollOptions,
): Promise<JobListItem | undefined> {
  const first = options.firstDelayMs ?? 1000;
  const max = options.maxDelayMs ?? 15_000;
  let delay = first;
  let last: JobListItem | undefined;
  for (;;) {
    const remaining = options.deadline - Date.now();
    if (remaining <= 0) return last;
    await sleep(Math.min(delay, remaining), undefined, { signal: options.signal });
    if (Date.now() >= options.deadline) return last;
    let job: JobListItem | undefined;
    try {
      job = await findJob(client, options.routerId, options.match, options.deadline, options.signal);
    } catch (error) {
      // The job is submitted; a look that failed for a passing reason (429s from another machine sharing the
      // key, a dropped connection, a 5xx) only delays the confirmation. Anything else is for the caller.
      if (!isPassing(error)) throw error;
      delay = Math.min(max, Math.max(delay * GROWTH, (error as { retryAfterMs?: number }).retryAfterMs ?? 0));
      continue;
    }
    if (job === undefined && last !== undefined && options.vanishedIsDeleted) {
      const deleted: JobListItem = { ...last, status: "deleted", error: VANISHED_REASON };
      options.onUpdate?.(deleted);
      return deleted;
    }
    if (job && job.status !== last?.status) {
      options.onUpdate?.(job);
      delay = first;
    } else {
      delay = Math.min(max, delay * GROWTH);
    }
    last = job ?? last;
    if (last && isTerminal(last.status)) return last;
  }
}

/** A failure that only delays a confirmation: the next look may well succeed. */
export function isPassing(error: unknown): boolean {
  return (
    error instanceof RateLimitedError ||
    error instanceof NetworkError ||
    error instanceof TimeoutError ||
    (error instanceof ApiError && error.statusCode >= 500)
  );
}

/** Picks the awaited job out of a list. */
export type JobMatch = (job: JobListItem) => boolean;

/** One job-list request: the job that matches, whatever the list's order. */
export async function findJob(
  client: RouterJobsClient,
  routerId: string,
  match: JobMatch,
  deadline: number,
  signal?: AbortSignal,
): Promise<JobListItem | undefined> {
  // A look that starts just before the deadline may finish a little after it: its answer is still worth having.
  const jobs = await client.listJobs(routerId, {
    deadlineMs: Math.max(LAST_LOOK_MS, deadline - Date.now()),
    signal,
  });
  return jobs.find(match);
}
