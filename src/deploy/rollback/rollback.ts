/**
 * Rollback: puts a router back to the backup a routerjobs job took before its script (`make_backup`), by a
 * restore job submitted through the spec's job API. See docs/rollback.md for why a job and not the
 * synchronous endpoint: a restore is a change, so it belongs in the router's job list (the record every
 * machine and the portal read), it queues behind whatever the router is still running, it waits for a router
 * that is offline instead of failing at once, and the service's `Idempotency-Key` plus its own marker make
 * it run once however often apply is run again.
 *
 * Never throws for a failed restore: the caller reports what happened (restored, or why not) and still fails
 * the resource whose job failed.
 */
import type { RouterJobsClient } from "../../client/client.js";
import { RateLimitedError } from "../../client/errors.js";
import { patiently } from "../../client/patience.js";
import { tagOf } from "../../contract/attempt-marker.js";
import { formatDuration } from "../../contract/duration.js";
import { isTerminal, type JobListItem } from "../../contract/job.js";
import { failureReason } from "../job-list/failure-reason.js";
import { findJob, pollJob } from "../job-list/poll.js";
import {
  backupBaseName,
  restoreDescription,
  restoreIdempotencyKey,
  restoreMarker,
  restoreScript,
} from "./rollback-script.js";

export interface RestoreRequest {
  readonly client: RouterJobsClient;
  readonly routerId: string;
  /** The declaring resource (construct path): its tag goes into the restore's marker. */
  readonly resource: string;
  /** The job whose backup is restored: its `seq_id` names the backup file. */
  readonly seqId: number | undefined;
  /** How long the restore may take, submission and confirmation together. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Progress lines (`restore job #13 running`). */
  readonly write?: (line: string) => void;
}

export interface RestoreOutcome {
  readonly restored: boolean;
  /** One sentence for the failure line: how the router was restored, or why it was not. */
  readonly summary: string;
  /** The restore job as last seen, when one was submitted or found. */
  readonly job?: JobListItem | undefined;
}

export async function restoreRouter(request: RestoreRequest): Promise<RestoreOutcome> {
  const { client, routerId, seqId } = request;
  if (seqId === undefined)
    return {
      restored: false,
      summary: "not rolled back: the service did not list the job's seq_id, which names its backup",
    };
  const backup = backupBaseName(seqId);
  const resourceTag = tagOf(request.resource);
  const marker = restoreMarker(resourceTag, seqId);
  const deadline = Date.now() + request.timeoutMs;
  const match = (listed: JobListItem) => listed.description.endsWith(`[${marker}]`);
  try {
    // An earlier apply of this failure (killed, or run again by hand) may have made the restore already.
    let job = await findJob(client, routerId, match, deadline, { signal: request.signal, text: marker });
    if (job) request.write?.(`rollback: restore job #${job.seq_id ?? job.id} already listed (${job.status})`);
    else {
      await submit(request, resourceTag, seqId, deadline);
      request.write?.(`rollback: restoring the router from backup ${backup}`);
    }
    if (!job || !isTerminal(job.status)) {
      job =
        (await pollJob(client, {
          routerId,
          match,
          text: marker,
          deadline,
          signal: request.signal,
          vanishedIsDeleted: client.api === "sdx",
        })) ?? job;
    }
    const label = job ? `restore job #${job.seq_id ?? job.id}` : "the restore job";
    if (!job || !isTerminal(job.status))
      return {
        restored: false,
        job,
        summary: `not rolled back in time: ${label} did not finish within ${formatDuration(request.timeoutMs)} (${job?.status ?? "not listed"}); see the router`,
      };
    if (job.status === "completed")
      return {
        restored: true,
        job,
        summary: `rolled back: the router is restored from backup ${backup} (${label})`,
      };
    const reason = await failureReason(client, routerId, job, deadline);
    return { restored: false, job, summary: `the rollback failed: ${label} ${job.status}: ${reason}` };
  } catch (error) {
    request.signal?.throwIfAborted();
    return { restored: false, summary: `the rollback failed: ${(error as Error).message}` };
  }
}

/**
 * Submits the restore with one `Idempotency-Key`. After a failure that may have reached the service (a reset,
 * a 5xx), the list is asked for the restore's marker before anything is sent again; a 429 is retried.
 */
async function submit(
  request: RestoreRequest,
  resourceTag: string,
  seqId: number,
  deadline: number,
): Promise<void> {
  const marker = restoreMarker(resourceTag, seqId);
  const body = {
    description: restoreDescription(resourceTag, seqId),
    script: restoreScript(seqId),
    make_backup: false,
    express_execute: true,
    needs_acknowledgement: true,
  };
  const idempotencyKey = restoreIdempotencyKey(request.routerId, resourceTag, seqId);
  // After a failure that may have reached the service, the restore job is looked for by its marker before it
  // is sent again: a 429 is the one failure known to leave nothing behind.
  await patiently(
    async (failures) => {
      const last = failures.at(-1);
      if (last !== undefined && !(last instanceof RateLimitedError)) {
        const listed = await findJob(
          request.client,
          request.routerId,
          (job) => job.description.endsWith(`[${marker}]`),
          deadline,
          { signal: request.signal, text: marker },
        ).catch(() => undefined);
        if (listed) return;
      }
      await request.client.submitJob(request.routerId, body, {
        idempotencyKey,
        deadlineMs: Math.max(1, deadline - Date.now()),
        signal: request.signal,
      });
    },
    { deadline, signal: request.signal },
  );
}
