/**
 * The job that a RouterScript hands to `routerjobs apply` at `terraform apply` time, as JSON in the
 * `ROUTERJOBS_JOB` environment variable of its local-exec provisioner. This file is the interface between the
 * constructs (which write it at synth time) and the CLI (which reads it), so it must not import cdktf: the CLI
 * imports it without pulling in the CDK.
 */
import { createHash } from "node:crypto";
import * as z from "zod";
import { API_PROFILES, DEFAULT_API_PROFILE } from "./api-profile-name.js";
import { parseEnvJson } from "./env-json.js";
import { uuidSchema } from "./ids.js";
import { anyProfileScriptSchema, descriptionSchema, notifyUrlSchema, scriptLengthProblem } from "./job.js";
import { waveSchema } from "./wave-check.js";

/** Environment variable holding the job JSON. */
export const APPLY_JOB_ENV = "ROUTERJOBS_JOB";
/**
 * Environment variable holding Terraform's id of the resource instance (`self.id`). It is new for every
 * creation (and so for every re-run after a replacement or a taint) and the same for the destroy of that
 * instance, so together with `job_key` it names one logical submission (see {@link idempotencyKey}).
 */
export const INSTANCE_ID_ENV = "ROUTERJOBS_INSTANCE_ID";

export const APPLY_JOB_VERSION = 1;
export const WAIT_MODES = ["poll", "receiver", "auto"] as const;
export type WaitMode = (typeof WAIT_MODES)[number];
export const JOB_PHASES = ["create", "destroy"] as const;
/** `on-failure`: when the job that took a backup fails, apply restores the router from it (docs/rollback.md). */
export const ROLLBACK_MODES = ["on-failure"] as const;
export type RollbackMode = (typeof ROLLBACK_MODES)[number];
export type JobPhase = (typeof JOB_PHASES)[number];

/** The fields that define what runs on the router; `job_key` is their hash, so a change of any re-runs the job. */
export interface JobDefinition {
  readonly phase: JobPhase;
  readonly router_id: string;
  readonly description: string;
  readonly script: string;
  readonly make_backup: boolean;
  /**
   * Absent: `routerjobs apply` decides ({@link DEFAULT_EXPRESS_EXECUTE}). Express only says when the job runs,
   * not what runs, so an absent flag keys as `false` did before express became the default: upgrading leaves
   * every existing job's key, and so its resource, as it was (docs/decisions.md).
   */
  readonly express_execute?: boolean | undefined;
  readonly needs_acknowledgement: boolean;
  readonly notify_url?: string | undefined;
}

/** What `routerjobs apply` submits when the job JSON leaves `express_execute` out: at once. */
export const DEFAULT_EXPRESS_EXECUTE = true;

/**
 * sha256 (hex) of a canonical rendering of the definition. Fields are listed explicitly, in a fixed order, so
 * that the key does not depend on property order and an added field is a deliberate, versioned change.
 * How the CLI waits (`wait_for`, `timeout_ms`) and where the job is declared (`resource`) are left out: changing
 * them must not re-run a job on a router.
 */
export function jobKey(definition: JobDefinition): string {
  const canonical = JSON.stringify([
    APPLY_JOB_VERSION,
    definition.phase,
    definition.router_id,
    definition.description,
    definition.script,
    definition.make_backup,
    definition.express_execute ?? false,
    definition.needs_acknowledgement,
    definition.notify_url ?? null,
  ]);
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * A lowercase UUID (RFC 9562 version 8, name-based on sha256) for the `Idempotency-Key` header: the same for
 * every retry of one provisioner run, different after a replacement (new instance id), so a job that failed
 * and was tainted really runs again on the next apply instead of replaying the old acknowledgement.
 */
export function idempotencyKey(key: string, instanceId: string): string {
  const bytes = createHash("sha256").update(`${key}:${instanceId}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The job JSON. Unknown keys are tolerated (a later minor addition must not break an older CLI); a change of
 * meaning bumps `version`, which an older CLI refuses with a clear message.
 */
export const applyJobSchema = z
  .looseObject({
    version: z.literal(APPLY_JOB_VERSION, {
      error: (issue) =>
        `version must be ${APPLY_JOB_VERSION} (got ${JSON.stringify(issue.input)}); this routerjobs may be older than the constructs that wrote the job`,
    }),
    phase: z.enum(JOB_PHASES),
    /** Construct path of the RouterScript, e.g. `office/edge-1/firewall`: for messages and logs. */
    resource: z.string().min(1),
    router_id: uuidSchema,
    description: descriptionSchema,
    /** Within the limits of `api`'s profile, checked below once `api` is read. */
    script: anyProfileScriptSchema,
    make_backup: z.boolean(),
    express_execute: z.boolean().optional(),
    needs_acknowledgement: z.boolean(),
    notify_url: notifyUrlSchema.optional(),
    wait_for: z.enum(WAIT_MODES),
    timeout_ms: z.number().int().positive(),
    job_key: z.string().regex(/^[0-9a-f]{64}$/, { error: "job_key must be 64 lowercase hex characters" }),
    /**
     * Rollout (a Fleet with `rollout`): the job's wave, for progress lines. Not part of `job_key`: moving a
     * router to another wave must not run its job again.
     */
    rollout: waveSchema.optional(),
    /** The job API to submit through (`spec` or `sdx`), when the construct declares one; not in `job_key`. */
    api: z.enum(API_PROFILES).optional(),
    /**
     * What apply does when the job fails (docs/rollback.md); absent, nothing is restored. Not in `job_key`:
     * asking for a rollback does not change what runs on the router.
     */
    rollback: z.enum(ROLLBACK_MODES).optional(),
    /**
     * A safe change (docs/safe-change.md): the script arms a revert named after `tag`, which apply disarms by
     * a follow-up job once the service reaches the router again. Not in `job_key`: the armed script is.
     */
    safe_change: z
      .strictObject({
        tag: z
          .string()
          .regex(/^[a-z0-9-]{1,40}$/, { error: "safe_change.tag must be 1 to 40 of a-z, 0-9 and -" }),
        confirm_within_ms: z.number().int().positive(),
      })
      .optional(),
  })
  .superRefine((job, ctx) => {
    const problem = scriptLengthProblem(job.script, job.api ?? DEFAULT_API_PROFILE);
    if (problem !== undefined)
      ctx.addIssue({ code: "custom", message: `script ${problem}`, path: ["script"] });
  })
  .refine((job) => job.job_key === jobKey(job), {
    error:
      "job_key does not match the job: the job JSON was changed after its key was computed; synthesize (cdktf synth) or plan again",
    path: ["job_key"],
  });
export type ApplyJob = z.output<typeof applyJobSchema>;

/** Reads `ROUTERJOBS_JOB` text; every problem is a UsageError naming the field. */
export function parseApplyJob(text: string): ApplyJob {
  return parseEnvJson(applyJobSchema, text, APPLY_JOB_ENV, "job");
}
