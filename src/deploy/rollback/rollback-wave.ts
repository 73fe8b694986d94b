/**
 * `onFailure: "rollback-wave"` at the wave's gate: when the wave's check failed, every router of the wave is
 * restored from the backup its first job of the wave took (the configuration before the wave), through the
 * same restore job as a single failed job's rollback (rollback.ts). See docs/rollback.md.
 *
 * It runs in `routerjobs verify` because that is the one place that runs after the whole wave: Terraform
 * starts the gate once every job of the wave completed. A job that fails never lets Terraform reach the gate,
 * so a failed job's own apply restores its router (`rollback: "on-failure"`, set on every job of such a
 * rollout), and its wave's other routers keep their change (docs/rollback.md says so).
 */

import type { RouterJobsClient } from "../../client/client.js";
import { tagOf } from "../../contract/attempt-marker.js";
import type { JobListItem } from "../../contract/job.js";
import type { WaveCheck, WaveJob } from "../../contract/wave-check.js";
import { mapLimited } from "../../platform/map-limited.js";
import { attemptsOf, currentAttempt } from "../job-list/attempts.js";
import { restoreRouter } from "./rollback.js";
import { parseRestoreMarker } from "./rollback-script.js";

export interface RouterRestore {
  readonly name: string;
  readonly restored: boolean;
  readonly summary: string;
}

/** How long one router's restore may take, submission to completion (a restore reboots the router). */
const RESTORE_TIMEOUT_MS = 10 * 60_000;
const CONCURRENCY = 8;

/** The backup to restore: the oldest one this wave's jobs took on the router (theirs latest attempts). */
export function backupToRestore(
  jobs: readonly JobListItem[],
  declared: readonly WaveJob[],
): { readonly seqId: number; readonly resource: string } | undefined {
  let chosen: { seqId: number; resource: string } | undefined;
  for (const { resource, listed } of latestAttempts(jobs, declared)) {
    const ran = listed.status === "completed" || listed.status === "failed";
    if (!ran || !listed.make_backup || listed.seq_id === undefined) continue;
    if (chosen === undefined || listed.seq_id < chosen.seqId) chosen = { seqId: listed.seq_id, resource };
  }
  return chosen;
}

/** The latest attempt of each of the wave's jobs on one router, as listed, with its declaring resource. */
function latestAttempts(
  jobs: readonly JobListItem[],
  declared: readonly WaveJob[],
): { readonly resource: string; readonly listed: JobListItem }[] {
  return declared.flatMap((job) => {
    const { latest } = currentAttempt(attemptsOf(jobs, tagOf(job.resource)), tagOf(job.job_key));
    return latest ? [{ resource: job.resource, listed: latest.job }] : [];
  });
}

/**
 * Whether a restore ran on the router after the wave's latest attempts, from one of their backups: the router
 * no longer holds the wave's change although Terraform's state records its jobs as done. Returns that
 * restore job, or undefined.
 */
export function restoredAfterWave(
  jobs: readonly JobListItem[],
  declared: readonly WaveJob[],
): JobListItem | undefined {
  const latest = latestAttempts(jobs, declared);
  const seqs = new Set(latest.flatMap(({ listed }) => (listed.seq_id === undefined ? [] : [listed.seq_id])));
  const newest = Math.max(0, ...seqs);
  return jobs.find((job) => {
    const restore = parseRestoreMarker(job.description);
    return (
      restore !== undefined &&
      seqs.has(restore.seqId) &&
      (job.seq_id ?? 0) > newest &&
      job.status !== "failed" &&
      job.status !== "deleted"
    );
  });
}

/**
 * Before a rollback-wave gate checks its wave again (a re-run after the wave was rolled back): the routers
 * that were restored since their jobs ran. Their jobs must run again before the rollout goes on, or the next
 * wave would get the change while this one does not hold it. One job-list request per router.
 */
export async function routersRolledBack(
  check: WaveCheck,
  context: { readonly client: RouterJobsClient; readonly signal?: AbortSignal | undefined },
): Promise<string[]> {
  const found: string[] = [];
  for (const router of check.routers) {
    if (!router.jobs || router.jobs.length === 0) continue;
    const listed = await context.client.listJobs(router.router_id, { signal: context.signal });
    const restore = restoredAfterWave(listed, router.jobs);
    if (restore) found.push(`${router.name} (restore job #${restore.seq_id ?? restore.id})`);
  }
  return found;
}

export async function rollBackWave(
  check: WaveCheck,
  context: {
    readonly client: RouterJobsClient;
    readonly signal?: AbortSignal | undefined;
    readonly write: (line: string) => void;
  },
): Promise<RouterRestore[]> {
  return mapLimited(check.routers, CONCURRENCY, async (router) => {
    const result = await restoreOne(router, context);
    context.write(`rollback-wave: ${result.name}: ${result.summary}`);
    return result;
  });
}

async function restoreOne(
  router: WaveCheck["routers"][number],
  context: { readonly client: RouterJobsClient; readonly signal?: AbortSignal | undefined },
): Promise<RouterRestore> {
  const name = router.name;
  try {
    const listed = await context.client.listJobs(router.router_id, { signal: context.signal });
    const backup = backupToRestore(listed, router.jobs ?? []);
    if (!backup)
      return { name, restored: false, summary: "not rolled back: no job of this wave took a backup on it" };
    const outcome = await restoreRouter({
      client: context.client,
      routerId: router.router_id,
      resource: backup.resource,
      seqId: backup.seqId,
      timeoutMs: RESTORE_TIMEOUT_MS,
      signal: context.signal,
    });
    return { name, restored: outcome.restored, summary: outcome.summary };
  } catch (error) {
    context.signal?.throwIfAborted();
    return { name, restored: false, summary: `the rollback failed: ${(error as Error).message}` };
  }
}
