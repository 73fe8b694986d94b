/**
 * The second half of a safe change (docs/safe-change.md): after the job that armed the revert has completed,
 * a follow-up job that the service can only run once it reaches the router again. It reads the router, then
 * disarms the revert; when the revert has fired already, it fails saying so. It is an ordinary declared job
 * (its own resource and key), so its exactly-once bookkeeping is apply's own: an apply run again after a crash
 * or a service restart follows the same follow-up instead of submitting another.
 */

import type { RouterJobsClient } from "../../client/client.js";
import { type ApplyJob, type JobDefinition, jobKey } from "../../contract/apply-job.js";
import { formatDuration } from "../../contract/duration.js";
import { namedRouter } from "../../contract/router-list.js";
import { disarmRevertScript, REVERTED_MARKER, SAFE_CHANGE_PREFIX } from "../../routeros/build/safe-change.js";
import type { ApplyResult } from "./apply.js";

/** The follow-up job of `job`; undefined for a job that armed no revert. */
export function confirmationJob(job: ApplyJob): ApplyJob | undefined {
  const safe = job.safe_change;
  if (!safe || job.phase !== "create") return undefined;
  const definition: JobDefinition = {
    phase: "create",
    router_id: job.router_id,
    description: `safe-change confirm ${safe.tag}`,
    script: disarmRevertScript(safe.tag),
    make_backup: false,
    express_execute: true,
    needs_acknowledgement: true,
    ...(job.notify_url === undefined ? {} : { notify_url: job.notify_url }),
  };
  const { phase: _, ...fields } = definition;
  return {
    version: job.version,
    phase: "create",
    resource: `${job.resource}/safe-change`,
    ...fields,
    wait_for: job.wait_for,
    // Past the deadline: a router that cut itself off answers again only after the revert and its reboot.
    timeout_ms: safe.confirm_within_ms + job.timeout_ms,
    job_key: jobKey(definition),
    ...(job.api === undefined ? {} : { api: job.api }),
    ...(job.rollout === undefined ? {} : { rollout: job.rollout }),
  } as ApplyJob;
}

/**
 * What the change's apply reports, from the change's own result and its follow-up's. A reverted router is
 * named as people name it where the service lists names (one request, made only then). The change's job has
 * completed, or failed because the router restarted before the service read its outcome: a device that cut
 * the service off answers only after its revert, whose backup load is that restart.
 */
export async function safeChangeResult(
  job: ApplyJob,
  change: ApplyResult & { readonly outcome: "completed" | "failed" },
  confirmation: ApplyResult,
  context: { readonly client: RouterJobsClient; readonly write: (line: string) => void },
): Promise<ApplyResult> {
  const { write } = context;
  const safe = job.safe_change;
  if (!safe) return change;
  const armed = `${SAFE_CHANGE_PREFIX}${safe.tag}`;
  const within = formatDuration(safe.confirm_within_ms);
  if (confirmation.outcome === "completed") {
    write(`confirmed: the service reached the router again; the revert ${armed} is disarmed`);
    return change;
  }
  if (confirmation.outcome === "timeout") {
    write(
      `not confirmed: the service has not reached the router since the change; the revert ${armed} is armed on it ` +
        `and fires ${within} after the change; the next apply waits for the same confirmation`,
    );
    return { outcome: "timeout", job: change.job };
  }
  const reason = confirmation.reason.includes(REVERTED_MARKER)
    ? `reverted on ${namedRouter(job.router_id, await context.client.routerNames())}: the service could not reach it within ${within} after the change`
    : `the confirmation of the change failed (${confirmation.reason}); the revert ${armed} may still be armed`;
  const seen = change.job ?? confirmation.job;
  write(reason);
  return { outcome: "failed", job: seen, reason };
}
