import type { RouterJobsClient } from "../../client/client.js";
import { ApiError } from "../../client/errors.js";
import { isTransient, pause, Schedule } from "../../client/patience.js";
import type { JobListItem } from "../../contract/envelope.js";
import { isTerminal } from "../../contract/job.js";

/**
 * Polling the job list, adaptively: the first look when the job is likely done (soon for an express job, about
 * half a scheduler tick for one that waits for the tick), then slower while nothing changes, soon again after a
 * change (a job seen running is about to finish). Every request goes through the client's shared rate budget,
 * so ten provisioners polling at once still stay within the key's 60 per minute.
 */
export interface PollSchedule {
  /** Delay before the first look. */
  readonly firstMs: number;
  /** Delay after a look that saw the job change. */
  readonly afterChangeMs: number;
  /** Longest delay; each look that sees no change waits `GROWTH` times longer than the one before. */
  readonly maxMs: number;
}

/**
 * An express job runs at submission; a short script with its backup is done within a second on the service's
 * routers, so one look after a second usually confirms it (2 requests a job with the submission).
 */
export const EXPRESS_SCHEDULE: PollSchedule = { firstMs: 1000, afterChangeMs: 1000, maxMs: 15_000 };

/**
 * A job without express waits for the service's next tick (the spec's 10 s; the client cannot know it): a
 * first look at 5 s finds half of them done, the next (at 13 s) nearly all. Looking every second instead
 * spends several requests a job on looks that find it still waiting (figures: docs/performance.md).
 */
export const TICK_SCHEDULE: PollSchedule = { firstMs: 5000, afterChangeMs: 1000, maxMs: 15_000 };

export interface PollOptions {
  readonly routerId: string;
  /** Which listed job is the one awaited. */
  readonly match: JobMatch;
  /**
   * Narrows the job-list request to the awaited job where the service can (its attempt marker: see
   * `RouterJobsClient.findJobs`), so a look costs the same whatever the router's history.
   */
  readonly text?: string;
  /**
   * The awaited job's id, when known before the first look (the sites API's acknowledgement gives it); else
   * the id of the job once listed. With an id, an API that reads one job (`offersOneJob`) is asked for that job
   * alone: one small request a look, whatever the router's history.
   */
  readonly jobId?: string | undefined;
  /** Epoch ms. */
  readonly deadline: number;
  /** @default EXPRESS_SCHEDULE */
  readonly schedule?: PollSchedule;
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
  const { firstMs, afterChangeMs, maxMs } = options.schedule ?? EXPRESS_SCHEDULE;
  // Looks come quickly after a change and slow down while nothing changes.
  const looks = new Schedule({ firstMs, maxMs, growth: GROWTH });
  let delay = looks.next();
  let last: JobListItem | undefined;
  for (;;) {
    const remaining = options.deadline - Date.now();
    if (remaining <= 0) return last;
    await pause(Math.min(delay, remaining), options.signal);
    if (Date.now() >= options.deadline) return last;
    let job: JobListItem | undefined;
    try {
      job = await findJob(client, options.routerId, options.match, options.deadline, {
        signal: options.signal,
        text: options.text,
        jobId: options.jobId ?? last?.id,
      });
    } catch (error) {
      // The job is submitted; a look that failed for a passing reason (429s from another machine sharing the
      // key, a dropped connection, a 5xx) only delays the confirmation. Anything else is for the caller.
      if (!isTransient(error)) throw error;
      delay = looks.next((error as { retryAfterMs?: number }).retryAfterMs);
      continue;
    }
    if (job === undefined && last !== undefined && options.vanishedIsDeleted) {
      const deleted: JobListItem = { ...last, status: "deleted", error: VANISHED_REASON };
      options.onUpdate?.(deleted);
      return deleted;
    }
    if (job && job.status !== last?.status) {
      options.onUpdate?.(job);
      looks.restart(afterChangeMs);
    }
    delay = looks.next();
    last = job ?? last;
    if (last && isTerminal(last.status)) return last;
  }
}

/** Picks the awaited job out of a list. */
export type JobMatch = (job: JobListItem) => boolean;

export interface FindOptions {
  readonly signal?: AbortSignal | undefined;
  readonly text?: string | undefined;
  /** The job's id, when known: read alone where the API offers it (`RouterJobsClient.getJob`). */
  readonly jobId?: string | undefined;
}

/**
 * One look for the job: with its id, where the API reads one job, that job alone; else (or when that read
 * finds none) the job list's first job that matches, the list read no further than the page that holds it.
 * With `text` (a text its description contains) the service sends only the jobs that contain it, where it
 * offers that; else the list as the spec has it.
 */
export async function findJob(
  client: RouterJobsClient,
  routerId: string,
  match: JobMatch,
  deadline: number,
  { signal, text, jobId }: FindOptions = {},
): Promise<JobListItem | undefined> {
  // A look that starts just before the deadline may finish a little after it: its answer is still worth having.
  const call = { deadlineMs: Math.max(LAST_LOOK_MS, deadline - Date.now()), signal };
  if (jobId !== undefined && client.offersOneJob) {
    try {
      return await client.getJob(routerId, jobId, call);
    } catch (error) {
      // A 404 is a deleted job (the sites API shows none), or a host without the one-job read (neither
      // spelling routed): the list tells which.
      if (!(error instanceof ApiError && error.statusCode === 404)) throw error;
    }
  }
  // The list newest first, read only until the job is on it: a job found on the first page costs one request
  // however long the router's history (a paged list, as the sites API's may be).
  const jobs = await client.findJobs(routerId, text ?? "", { ...call, enough: (found) => found.some(match) });
  return jobs.find(match);
}
