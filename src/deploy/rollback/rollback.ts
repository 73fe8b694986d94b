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
import { SCRIPT_CHARS } from "../../contract/limits.js";
import { failureReason } from "../job-list/failure-reason.js";
import { findJob, pollJob } from "../job-list/poll.js";
import {
  backupBaseName,
  restoreDescription,
  restoreIdempotencyKey,
  restoreMarker,
  restoreScript,
  serviceRestoreDescription,
  serviceRestoreIdempotencyKey,
  serviceRestoreMarker,
  serviceRestoreScript,
} from "./rollback-script.js";

export interface RestoreRequest {
  readonly client: RouterJobsClient;
  readonly routerId: string;
  /** The declaring resource (construct path): its tag goes into the restore's marker. */
  readonly resource: string;
  /** The job whose backup is restored: its `seq_id` names the backup file on the router. */
  readonly seqId: number | undefined;
  /**
   * The service's backup of the job (the file name its `associated_backup` gives), where the API keeps backups
   * of its own (`client.offersBackups`): then the restore reads it from the service and puts it on the router,
   * instead of looking for the router's own file; `seqId` is not used.
   */
  readonly serviceBackup?: string | undefined;
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

/** One restore's identity and script: from the router's own backup file, or from the service's backup. */
interface RestoreSource {
  /** How the summary names the backup: `backup routerjobs-job-12`, `the service's backup 1732567800.rsc`. */
  readonly backup: string;
  readonly marker: string;
  readonly description: string;
  readonly idempotencyKey: string;
  /**
   * The restore's script, or why there is none (`refused`: a backup too long for one job of the profile);
   * reading the service's backup happens only when a restore is submitted.
   */
  readonly script: (options: {
    deadline: number;
    signal?: AbortSignal | undefined;
  }) => Promise<{ readonly text: string } | { readonly refused: string }>;
}

function restoreSource(request: RestoreRequest): RestoreSource | string {
  const resourceTag = tagOf(request.resource);
  const filename = request.serviceBackup;
  if (filename !== undefined) {
    const { client, routerId } = request;
    return {
      backup: `the service's backup ${filename}`,
      marker: serviceRestoreMarker(resourceTag, filename),
      description: serviceRestoreDescription(resourceTag, filename),
      idempotencyKey: serviceRestoreIdempotencyKey(routerId, resourceTag, filename),
      script: async ({ deadline, signal }) => {
        const content = await client.getBackup(routerId, filename, {
          deadlineMs: Math.max(1, deadline - Date.now()),
          ...(signal ? { signal } : {}),
        });
        const script = serviceRestoreScript(filename, content);
        const limit = SCRIPT_CHARS[client.api].max;
        const chars = [...script].length;
        if (chars > limit)
          return {
            refused: `the service's backup ${filename} makes a restore script of ${chars} characters, and one ${client.api} job takes at most ${limit}; restore it by hand (routerjobs backups get)`,
          };
        return { text: script };
      },
    };
  }
  const { seqId } = request;
  if (seqId === undefined)
    return "not rolled back: the service did not list the job's seq_id, which names its backup";
  return {
    backup: `backup ${backupBaseName(seqId)}`,
    marker: restoreMarker(resourceTag, seqId),
    description: restoreDescription(resourceTag, seqId),
    idempotencyKey: restoreIdempotencyKey(request.routerId, resourceTag, seqId),
    script: async () => ({ text: restoreScript(seqId) }),
  };
}

export async function restoreRouter(request: RestoreRequest): Promise<RestoreOutcome> {
  const { client, routerId } = request;
  const source = restoreSource(request);
  if (typeof source === "string") return { restored: false, summary: source };
  const { backup, marker } = source;
  const deadline = Date.now() + request.timeoutMs;
  const match = (listed: JobListItem) => listed.description.endsWith(`[${marker}]`);
  try {
    // An earlier apply of this failure (killed, or run again by hand) may have made the restore already.
    let job = await findJob(client, routerId, match, deadline, { signal: request.signal, text: marker });
    if (job) request.write?.(`rollback: restore job #${job.seq_id ?? job.id} already listed (${job.status})`);
    else {
      const refused = await submit(request, source, deadline);
      if (refused !== undefined) return { restored: false, summary: `not rolled back: ${refused}` };
      request.write?.(`rollback: restoring the router from ${backup}`);
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
        summary: `rolled back: the router is restored from ${backup} (${label})`,
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
 * a 5xx), the list is asked for the restore's marker before anything is sent again; a 429 is retried. Answers
 * why nothing was submitted, when the restore cannot be one job.
 */
async function submit(
  request: RestoreRequest,
  source: RestoreSource,
  deadline: number,
): Promise<string | undefined> {
  const { marker } = source;
  const script = await source.script({ deadline, signal: request.signal });
  if ("refused" in script) return script.refused;
  const body = {
    description: source.description,
    script: script.text,
    make_backup: false,
    express_execute: true,
    needs_acknowledgement: true,
  };
  const { idempotencyKey } = source;
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
  return undefined;
}
