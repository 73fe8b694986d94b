import { type ApplyJob, jobKey, type RollbackMode } from "../../src/contract/apply-job.js";

/** What a test declares of a job; the rest is as the constructs write it by default. */
export interface DeclaredJob {
  /** @default "set identity" */
  readonly description?: string;
  /** @default an identity change named after the resource */
  readonly script?: string;
  /** @default true */
  readonly makeBackup?: boolean;
  /** `null`: not declared, so apply decides (as the constructs write a job by default). @default true */
  readonly express?: boolean | null;
  /** @default "poll" */
  readonly waitFor?: ApplyJob["wait_for"];
  /** @default 30 s */
  readonly timeoutMs?: number;
  /** What apply does when the job fails; outside `job_key`, as synth writes it. @default none */
  readonly rollback?: RollbackMode;
  /** More of the job's definition (a rollback, a destroy phase...): part of its `job_key`, as synth makes it. */
  readonly definition?: Record<string, unknown>;
}

/**
 * A job as the constructs write it for `routerjobs apply` (ROUTERJOBS_JOB): by default an identity change named
 * after `resource`, with a backup, confirmed by polling, its `job_key` made from its definition. `options` as a
 * boolean is `express`.
 */
export function declareJob(
  routerId: string,
  resource: string,
  options: boolean | DeclaredJob = {},
): ApplyJob {
  const declared: DeclaredJob = typeof options === "boolean" ? { express: options } : options;
  const definition = {
    phase: "create" as const,
    router_id: routerId,
    description: declared.description ?? "set identity",
    script: declared.script ?? `/system identity set name=${resource.replaceAll("/", "-")}`,
    make_backup: declared.makeBackup ?? true,
    ...(declared.express === null ? {} : { express_execute: declared.express ?? true }),
    needs_acknowledgement: true,
    ...declared.definition,
  };
  return {
    version: 1,
    resource,
    wait_for: declared.waitFor ?? "poll",
    timeout_ms: declared.timeoutMs ?? 30_000,
    ...definition,
    job_key: jobKey(definition),
    ...(declared.rollback === undefined ? {} : { rollback: declared.rollback }),
  } as ApplyJob;
}
