/**
 * The hook apply calls when a job failed: whether to roll the router back (the job's `rollback`, or
 * `--rollback-on-failure`), and if so the restore, summed up in one sentence for the failure line. Where the
 * API keeps backups of its own (the sites API), the restore uses the service's backup the failed job's
 * `associated_backup` names; elsewhere the router's own backup file, which the job's `seq_id` names.
 */
import type { RouterJobsClient } from "../../client/client.js";
import type { ApplyJob } from "../../contract/apply-job.js";
import { restoreRouter } from "./rollback.js";
import { serviceBackupFile } from "./rollback-script.js";

export function rollbackWanted(job: ApplyJob, flag: boolean | undefined): boolean {
  return flag === true || job.rollback === "on-failure";
}

/** What the failure line adds: how the router was restored, or why it was not. Never throws but for an abort. */
export async function rollBackFailedJob(
  job: ApplyJob,
  failed: { readonly seq_id?: number | undefined; readonly associated_backup?: unknown },
  context: {
    readonly client: RouterJobsClient;
    readonly signal?: AbortSignal | undefined;
    readonly write: (line: string) => void;
  },
): Promise<string> {
  if (!job.make_backup) return "not rolled back: the job took no backup (make_backup is false)";
  const serviceBackup = context.client.offersBackups
    ? serviceBackupFile(failed.associated_backup)
    : undefined;
  if (context.client.offersBackups && serviceBackup === undefined)
    return `not rolled back: the ${context.client.api} API lists no associated_backup for the job, which names the service's backup`;
  const outcome = await restoreRouter({
    client: context.client,
    routerId: job.router_id,
    resource: job.resource,
    seqId: failed.seq_id,
    serviceBackup,
    timeoutMs: job.timeout_ms,
    signal: context.signal,
    write: context.write,
  });
  return outcome.summary;
}
