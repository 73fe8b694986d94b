/**
 * The hook apply calls when a job failed: whether to roll the router back (the job's `rollback`, or
 * `--rollback-on-failure`), and if so the restore, summed up in one sentence for the failure line.
 */
import type { RouterJobsClient } from "../../client/client.js";
import type { ApplyJob } from "../../contract/apply-job.js";
import { restoreRouter } from "./rollback.js";

export function rollbackWanted(job: ApplyJob, flag: boolean | undefined): boolean {
  return flag === true || job.rollback === "on-failure";
}

/** What the failure line adds: how the router was restored, or why it was not. Never throws but for an abort. */
export async function rollBackFailedJob(
  job: ApplyJob,
  failed: { readonly seq_id?: number | undefined },
  context: {
    readonly client: RouterJobsClient;
    readonly signal?: AbortSignal | undefined;
    readonly write: (line: string) => void;
  },
): Promise<string> {
  if (!job.make_backup) return "not rolled back: the job took no backup (make_backup is false)";
  if (context.client.api === "sdx")
    return "not rolled back: the sites API (sdx) keeps its backups on its own side and offers no restore (docs/rollback.md)";
  const outcome = await restoreRouter({
    client: context.client,
    routerId: job.router_id,
    resource: job.resource,
    seqId: failed.seq_id,
    timeoutMs: job.timeout_ms,
    signal: context.signal,
    write: context.write,
  });
  return outcome.summary;
}
