/**
 * `routerjobs_script`: one RouterOS script run once on one router, as a Terraform resource. Create is
 * `routerjobs apply`'s own path (apply.ts): the router's job list is read for this change's marker first, a job
 * already listed is followed instead of submitted again, and only a change with no attempt is submitted; the
 * state is returned once the job has ended. What the provider adds is exact knowledge of Terraform's state,
 * which a provisioner never has: Create is called only for an instance Terraform has not recorded, so every
 * attempt listed for it was made by an interrupted run and is adopted, on any machine, without a journal; an
 * instance this process destroyed (a replacement, a tainted failure) is known as recorded, so its next Create
 * is a new attempt.
 */
import { randomUUID } from "node:crypto";
import { defaultStateDir } from "../../client/state-dir.js";
import {
  type ApplyJob,
  applyJobSchema,
  DEFAULT_EXPRESS_EXECUTE,
  type JobDefinition,
  jobKey,
} from "../../contract/apply-job.js";
import { tagOf } from "../../contract/attempt-marker.js";
import { formatDuration, parseDuration } from "../../contract/duration.js";
import type { JobListItem } from "../../contract/job.js";
import { UsageError } from "../../errors.js";
import { type ApplyResult, applyJob, type SeenJob } from "../apply/apply.js";
import type { DeployKnowledge } from "../apply/deploy-knowledge.js";
import { Journal } from "../apply/journal.js";
import { findJob } from "../job-list/poll.js";
import { SCRIPT_RESOURCE_TYPE } from "../terraform/provider-address.js";
import type { ProviderContext } from "./config.js";
import { errorDiagnostic, warningDiagnostic } from "./diagnostics.js";
import { hasUnknown, type TfObject } from "./protocol/dynamic-value.js";
import type { WireMessage } from "./protocol/wire.js";
import type { ApplyOutcome, ManagedResource } from "./provider.js";
import { type BlockSpec, boolOf, stringOf } from "./schema.js";
import { movedObjectReplaces, moveFromTerraformData, resolveMove, unresolvedMove } from "./script-move.js";

export const DEFAULT_TIMEOUT = "10m";
/** How long a refresh or an import may take to read a router's jobs. */
const READ_DEADLINE_MS = 60_000;

export const SCRIPT_SCHEMA: BlockSpec = {
  description: "A RouterOS script run exactly once on a router through the job service, with a backup first.",
  attributes: [
    { name: "id", type: "string", computed: true, description: "This instance's id (it marks its jobs)." },
    { name: "router_id", type: "string", required: true, replaces: true, description: "The router's UUID." },
    {
      name: "script",
      type: "string",
      required: true,
      replaces: true,
      adopts: true,
      description: "The RouterOS script.",
    },
    {
      name: "description",
      type: "string",
      required: true,
      replaces: true,
      adopts: true,
      description: "The job's description (the job list shows it, with this change's marker after it).",
    },
    {
      name: "name",
      type: "string",
      optional: true,
      adopts: true,
      description:
        "Tells this change apart from the router's other changes in its job list (default: the description); " +
        "give one where two resources of a router share a description.",
    },
    {
      name: "make_backup",
      type: "bool",
      default: true,
      replaces: true,
      description: "Take a backup before the script.",
    },
    {
      name: "express",
      type: "bool",
      default: DEFAULT_EXPRESS_EXECUTE,
      replaces: true,
      description: "Run at once (express).",
    },
    {
      name: "needs_ack",
      type: "bool",
      default: true,
      replaces: true,
      description:
        "The job reports its end to the service (as the constructs' default): without it the spec's service lists the job completed at once, before the script runs, and a failure is never heard.",
    },
    {
      name: "notify_url",
      type: "string",
      optional: true,
      replaces: true,
      adopts: true,
      // A receiver's notify_url holds its path secret: Terraform shows it as (sensitive value).
      sensitive: true,
      description: "Where the service notifies the job's end (sensitive: a receiver's URL holds its secret).",
    },
    {
      name: "timeout",
      type: "string",
      default: DEFAULT_TIMEOUT,
      description:
        "How long apply waits for the job, like 10m; a job still running then is followed by the next apply.",
    },
    {
      name: "rollback",
      type: "string",
      optional: true,
      description:
        "on-failure: when the job fails, restore the router from the backup it took before the script (needs " +
        "make_backup; a restore reboots the router), and still fail the apply. Changed in place: it does not change what runs.",
    },
    {
      name: "destroy_script",
      type: "string",
      optional: true,
      adopts: true,
      description: "Run once when the resource is destroyed (after a completed job).",
    },
    {
      name: "planned_changes",
      type: "string",
      computed: true,
      description:
        "What the script does to a twin of the router's live configuration, as export lines by menu (+ added, " +
        "- removed, ~ changed), found when it was planned; null when the twin was not asked.",
    },
    { name: "job_id", type: "string", computed: true, description: "The job's id." },
    {
      name: "seq_id",
      type: "number",
      computed: true,
      description: "The job's number in the router's queue.",
    },
    { name: "status", type: "string", computed: true, description: "The job's status." },
    { name: "started_at", type: "string", computed: true, description: "When the router started the job." },
    { name: "finished_at", type: "string", computed: true, description: "When the job completed or failed." },
  ],
};

/** The job fields apply names, as this resource names them, for messages about a bad value. */
const ATTRIBUTE_OF: Readonly<Record<string, string>> = {
  express_execute: "express",
  needs_acknowledgement: "needs_ack",
  timeout_ms: "timeout",
  resource: "name",
};

/** The job a resource's object stands for, as apply runs it (exported for the constructs' tests). */
export function jobOf(object: TfObject, phase: "create" | "destroy"): ApplyJob {
  const description = stringOf(object, "description") ?? "";
  const timeout = stringOf(object, "timeout") ?? DEFAULT_TIMEOUT;
  const rollback = stringOf(object, "rollback");
  const definition = definitionOf(object, phase);
  const parsed = applyJobSchema.safeParse({
    version: 1,
    ...definition,
    resource: stringOf(object, "name") ?? description,
    // The provider's configuration decides: the receiver when it has one (ProviderContext.receiver).
    wait_for: "auto",
    timeout_ms: parseDuration(timeout, "timeout"),
    job_key: jobKey(definition),
    // Outside job_key, as for the constructs' jobs: asking for a rollback changes nothing on the router.
    ...(phase === "create" && rollback !== undefined ? { rollback } : {}),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? "");
    throw new UsageError(`${ATTRIBUTE_OF[field] ?? field}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/** What runs on the router for a resource's object: the part of its job that its key is made of. */
function definitionOf(object: TfObject, phase: "create" | "destroy"): JobDefinition {
  const script = phase === "create" ? stringOf(object, "script") : stringOf(object, "destroy_script");
  const description = stringOf(object, "description") ?? "";
  const notifyUrl = stringOf(object, "notify_url");
  return {
    phase,
    router_id: stringOf(object, "router_id") ?? "",
    description: phase === "create" ? description : `destroy: ${description}`,
    script: script ?? "",
    make_backup: boolOf(object, "make_backup") ?? true,
    express_execute: boolOf(object, "express") ?? DEFAULT_EXPRESS_EXECUTE,
    needs_acknowledgement: boolOf(object, "needs_ack") ?? true,
    ...(notifyUrl ? { notify_url: notifyUrl } : {}),
  };
}

/** The flags a listed job ran with, as the resource names them (null where no job is known). */
function listedFlags(job: JobListItem | undefined): TfObject {
  return {
    make_backup: job?.make_backup ?? null,
    express: job?.express_execute ?? null,
    needs_ack: job?.needs_acknowledgement ?? null,
  };
}

/** The times and numbers a listed (or notified) job adds to the state. */
function jobFields(job: SeenJob | JobListItem | undefined): TfObject {
  const listed = job as Partial<JobListItem> | undefined;
  return {
    job_id: job?.id ?? null,
    seq_id: job?.seq_id ?? null,
    status: job?.status ?? null,
    started_at: job?.started_at ?? null,
    finished_at: listed?.completed_at ?? listed?.failed_at ?? listed?.deleted_at ?? null,
  };
}

export function scriptResource(): ManagedResource<ProviderContext> {
  /** Instance tags of the objects this process destroyed: Terraform had recorded them. */
  const destroyedHere = new Set<string>();
  const journal = new Journal(defaultStateDir());

  const run = async (context: ProviderContext, job: ApplyJob, instanceId: string): Promise<ApplyResult> => {
    const jobs = await context.jobLists.of(job.router_id, Date.now() + job.timeout_ms);
    const knowledge: DeployKnowledge = {
      version: 1,
      routers: { [job.router_id]: jobs },
      resources: { [job.resource]: { instances: [...destroyedHere], tainted: false } },
      tracked: [job.resource],
    };
    return applyJob(job, {
      client: context.client,
      journal,
      instanceId,
      knowledge,
      receiver: context.receiver?.client,
      notifyUrl: context.receiver?.notifyUrl,
      signal: context.signal,
      write: (line) => process.stderr.write(`[INFO] routerjobs: ${line}\n`),
    });
  };

  const failureOf = (result: ApplyResult, job: ApplyJob): WireMessage => {
    if (result.outcome === "timeout")
      return errorDiagnostic(
        `the job on router ${job.router_id} did not finish within ${formatDuration(job.timeout_ms)}`,
        `job ${result.job?.id ?? "(not yet listed)"} is ${result.job?.status ?? "not yet listed"}. Nothing was recorded: ` +
          "the next terraform apply finds the same job by its marker and waits for it; it is not submitted again.",
      );
    const reason = result.outcome === "completed" ? "" : result.reason;
    return errorDiagnostic(
      `the job on router ${job.router_id} ${result.outcome}: ${reason}`,
      `job ${result.job?.id ?? ""}${result.job?.seq_id === undefined ? "" : ` (#${result.job.seq_id})`} ${result.outcome} on the router: ${reason}. ` +
        "The resource is tainted: the next terraform apply runs the script again as a new job.",
    );
  };

  return {
    typeName: SCRIPT_RESOURCE_TYPE,
    schema: SCRIPT_SCHEMA,
    validate(config) {
      if (hasUnknown(config)) return [];
      try {
        const job = jobOf({ ...config, script: stringOf(config, "script") ?? "" }, "create");
        if (stringOf(config, "destroy_script") !== undefined) jobOf(config, "destroy");
        if (job.rollback !== undefined && !job.make_backup)
          return [
            errorDiagnostic(
              'rollback: "on-failure" needs make_backup = true: it restores the router from the backup the job takes',
              "",
              "rollback",
            ),
          ];
        return [];
      } catch (error) {
        const message = (error as Error).message;
        const attribute = message.split(":")[0];
        return [errorDiagnostic(message, "", attribute)];
      }
    },
    plan(prior, planned) {
      if (!prior) return planned;
      return { ...planned, ...pick(prior, COMPUTED) };
    },
    replaces(prior, planned, priorPrivate) {
      const definition = hasUnknown(planned) ? undefined : definitionOf(planned, "create");
      return movedObjectReplaces(priorPrivate, prior, definition) ? ["script"] : [];
    },
    moveState: moveFromTerraformData,
    async planEffect(context, planned) {
      const routerId = stringOf(planned, "router_id");
      const script = stringOf(planned, "script");
      // Not configured yet, or the script waits for another resource: the effect is known after apply.
      if (!context || routerId === undefined || script === undefined) return { planned, diagnostics: [] };
      if (!context.twin) return { planned: { ...planned, planned_changes: null }, diagnostics: [] };
      const effect = await context.twin.effectOf(routerId, script);
      if (effect.kind === "changes")
        return {
          planned: { ...planned, planned_changes: effect.text },
          diagnostics:
            effect.unchecked === undefined
              ? []
              : [
                  warningDiagnostic(
                    `router ${routerId}: the service's path to it was not checked: ${effect.unchecked}`,
                    'Give the path in the provider block (service_address, router_addresses), or set reach = "off".',
                  ),
                ],
        };
      if (effect.kind === "cuts")
        return {
          planned: { ...planned, planned_changes: effect.text },
          diagnostics: [
            errorDiagnostic(
              `this change would cut the service off from router ${routerId}: ${effect.reason}`,
              `Run on a twin of the router's live configuration, the script leaves the service no way to the router ` +
                `(path: ${effect.path}), and a job there would never report back; nothing was submitted. Fix the ` +
                "script, correct the path (service_address, router_addresses, reach_port in the provider block), or " +
                'set reach = "off" to skip the check.',
              "script",
            ),
          ],
        };
      if (effect.kind === "fails")
        return {
          planned: { ...planned, planned_changes: null },
          diagnostics: [
            errorDiagnostic(
              `the script would fail on router ${routerId}: ${effect.error}`,
              "Run on a twin of the router's live configuration, the script stops there with this error; nothing " +
                "was submitted. Fix the script, or set plan_twin = false in the provider block to skip the twin.",
              "script",
            ),
          ],
        };
      return {
        planned: { ...planned, planned_changes: null },
        diagnostics: [
          warningDiagnostic(
            `router ${routerId}: the twin could not plan this script: ${effect.reason}`,
            "planned_changes stays empty; the script is applied as declared.",
          ),
        ],
      };
    },
    async create(context, planned) {
      const instanceId = randomUUID();
      const job = jobOf(planned, "create");
      const result = await run(context, job, instanceId);
      const state: TfObject = {
        ...planned,
        id: instanceId,
        // As planned (Terraform refuses a value that differs from a known plan); null when it was not known.
        planned_changes: stringOf(planned, "planned_changes") ?? null,
        ...jobFields(result.job),
      };
      if (result.outcome === "completed") return { state, diagnostics: [] };
      // A failure is recorded (Terraform taints the object, and the next apply replaces it: a new attempt);
      // a job not yet finished is not, so that the next apply follows it.
      return { state: result.outcome === "timeout" ? null : state, diagnostics: [failureOf(result, job)] };
    },
    async update(_context, prior, planned): Promise<ApplyOutcome> {
      return { state: { ...planned, ...pick(prior, COMPUTED) }, diagnostics: [] };
    },
    async delete(context, prior) {
      const instanceId = stringOf(prior, "id") ?? "";
      if (stringOf(prior, "destroy_script") !== undefined && stringOf(prior, "status") === "completed") {
        const job = jobOf(prior, "destroy");
        const result = await run(context, job, instanceId);
        if (result.outcome !== "completed") {
          const diagnostic = failureOf(result, job);
          throw new UsageError(`destroy_script: ${String(diagnostic.summary)}`);
        }
      }
      destroyedHere.add(tagOf(instanceId));
    },
    async read(context, current, privateData) {
      const routerId = stringOf(current, "router_id");
      const moved = unresolvedMove(privateData);
      if (moved && routerId) {
        const jobs = await context.jobLists.of(routerId, Date.now() + READ_DEADLINE_MS);
        const { job, ...found } = resolveMove(current, moved, jobs);
        return { state: { ...current, ...listedFlags(job), ...jobFields(job) }, ...found };
      }
      const jobId = stringOf(current, "job_id");
      if (!routerId || !jobId) return { state: current };
      const jobs = await context.jobLists.of(routerId, Date.now() + READ_DEADLINE_MS);
      const listed = jobs.find((job) => job.id === jobId);
      // A job the list no longer holds (history is pruned) still ran: the state keeps what it recorded.
      return { state: listed ? { ...current, ...jobFields(listed) } : current };
    },
    async importState(context, id) {
      const [routerId, jobId, extra] = id.split("/");
      if (!routerId || !jobId || extra !== undefined)
        throw new UsageError(`import id must be ROUTER_ID/JOB_ID (got ${JSON.stringify(id)})`);
      const listed = await findJob(
        context.client,
        routerId,
        (job) => job.id === jobId,
        Date.now() + READ_DEADLINE_MS,
        {
          jobId,
          signal: context.signal,
        },
      );
      if (!listed) throw new UsageError(`router ${routerId} lists no job ${jobId}`);
      return {
        id: `import-${jobId}`,
        router_id: routerId,
        ...listedFlags(listed),
        timeout: DEFAULT_TIMEOUT,
        ...jobFields(listed),
      };
    },
  };
}

const COMPUTED = [
  "id",
  "planned_changes",
  "job_id",
  "seq_id",
  "status",
  "started_at",
  "finished_at",
] as const;

function pick(object: TfObject, names: readonly string[]): TfObject {
  return Object.fromEntries(names.map((name) => [name, object[name] ?? null]));
}
