import { type ApplyJob, jobKey } from "../../src/contract/apply-job.js";

/**
 * A job as the constructs write it for `routerjobs apply` (ROUTERJOBS_JOB): an identity change named after
 * `resource`, with a backup, confirmed by polling, its `job_key` made from its definition.
 */
export function declareJob(routerId: string, resource: string, express = true): ApplyJob {
  const definition = {
    phase: "create" as const,
    router_id: routerId,
    description: "set identity",
    script: `/system identity set name=${resource.replaceAll("/", "-")}`,
    make_backup: true,
    express_execute: express,
    needs_acknowledgement: true,
  };
  return {
    version: 1,
    resource,
    wait_for: "poll",
    timeout_ms: 30_000,
    ...definition,
    job_key: jobKey(definition),
  } as ApplyJob;
}
