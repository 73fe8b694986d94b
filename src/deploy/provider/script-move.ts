/**
 * `moved { from = terraform_data.x  to = routerjobs_script.x }`: a stack that ran its jobs through provisioners
 * moves to the provider without running anything again. The provisioner form keeps the job's identity in state
 * (`input.routerjobs`: router, resource, job key, description) and its instance id made the job's marker.
 * Terraform asks for the move before the provider is configured, so the move itself only carries the identity
 * across; the refresh that follows (configured) finds the job in the router's list as `routerjobs reconcile`
 * judges it: a completed job is the moved state; a failed one, or none (it never reached the router), is kept
 * so that the plan runs the change again; a job still on its way fails the plan until it has ended. The script
 * itself is not in the provisioner's state: the configuration's is adopted, and the job key kept in the
 * object's private data checks that the adopted script is the one that ran (another one replaces the object).
 */
import { DEFAULT_EXPRESS_EXECUTE, type JobDefinition, jobKey } from "../../contract/apply-job.js";
import { tagOf } from "../../contract/attempt-marker.js";
import { isTerminal, type JobListItem } from "../../contract/job.js";
import { UsageError } from "../../errors.js";
import { attemptsOf, currentAttempt } from "../job-list/attempts.js";
import { STATE_IDENTITY_KEY, stateIdentitySchema } from "../terraform/state.js";
import { warningDiagnostic } from "./diagnostics.js";
import { isKnownObject, type TfObject, type TfValue } from "./protocol/dynamic-value.js";
import type { WireMessage } from "./protocol/wire.js";
import type { MovedObject, MoveSource } from "./provider.js";
import { stringOf } from "./schema.js";

/** Terraform's own provider, which `terraform_data` belongs to. */
const BUILTIN_PROVIDER = "terraform.io/builtin/terraform";

/** What the provider keeps privately about a moved object. */
export interface MovedPrivate {
  /** The key of the job the provisioner form ran for it. */
  readonly moved_job_key: string;
  /** Until a refresh has found what that job did. */
  readonly unresolved: boolean;
}

/** `input` of `terraform_data` is dynamically typed: Terraform's JSON state stores it as `{value, type}`. */
function dynamicValue(value: TfValue | undefined): TfValue | undefined {
  if (value !== undefined && isKnownObject(value) && "value" in value && "type" in value) return value.value;
  return value;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const encoded = (data: MovedPrivate) => new TextEncoder().encode(JSON.stringify(data));

function movedPrivateOf(bytes: Uint8Array | undefined): MovedPrivate | undefined {
  if (!bytes || bytes.length === 0) return undefined;
  const data = safeJson(new TextDecoder().decode(bytes)) as Partial<MovedPrivate> | undefined;
  if (typeof data?.moved_job_key !== "string") return undefined;
  return { moved_job_key: data.moved_job_key, unresolved: data.unresolved === true };
}

/** The routerjobs_script object a provisioner-backed job resource becomes; its job is found by the refresh. */
export function moveFromTerraformData(source: MoveSource): MovedObject {
  if (source.typeName !== "terraform_data" || !source.providerAddress.endsWith(BUILTIN_PROVIDER))
    throw new UsageError(
      `routerjobs_script moves only from terraform_data (the constructs' provisioner form), not from ${source.typeName} of ${source.providerAddress}: ` +
        "remove the moved block, then `terraform state rm` the old resource and `terraform import` the new one as ROUTER_ID/JOB_ID",
    );
  const object = isKnownObject(source.state) ? source.state : {};
  const input = dynamicValue(object.input);
  const fields = input !== undefined && isKnownObject(input) ? input : {};
  const text = fields[STATE_IDENTITY_KEY];
  const identity = stateIdentitySchema.safeParse(typeof text === "string" ? safeJson(text) : undefined);
  const instanceId = stringOf(object, "id");
  if (!instanceId || !identity.success)
    throw new UsageError(
      `this terraform_data holds no routerjobs job (input.${STATE_IDENTITY_KEY}): only the constructs' job resources move to routerjobs_script; remove its moved block`,
    );
  const destroyText = fields.destroy_job;
  const destroyJob = typeof destroyText === "string" ? safeJson(destroyText) : undefined;
  const destroyScript = (destroyJob as { script?: unknown } | undefined)?.script;
  return {
    state: {
      id: instanceId,
      router_id: identity.data.router_id,
      description: identity.data.description,
      name: identity.data.resource,
      ...(typeof destroyScript === "string" ? { destroy_script: destroyScript } : {}),
    },
    private: encoded({ moved_job_key: identity.data.job_key, unresolved: true }),
    diagnostics: [],
  };
}

/** A moved object's private data while its job has not been looked for: the refresh's to find. */
export function unresolvedMove(privateData: Uint8Array | undefined): MovedPrivate | undefined {
  const moved = movedPrivateOf(privateData);
  return moved?.unresolved ? moved : undefined;
}

/** What the refresh of a moved object found in its router's job list. */
export interface MoveFinding {
  /** The moved change's job, when it completed or failed; none when it never ran or was superseded. */
  readonly job: JobListItem | undefined;
  /** The object's private data from now on: resolved. */
  readonly private: Uint8Array;
  readonly diagnostics: readonly WireMessage[];
}

/**
 * The job of a moved object in its router's job list, as `routerjobs reconcile` judges a job resource: the
 * newest attempt at this definition, unless another definition of the resource ran after it. A job still on
 * its way is refused: the plan waits for its end. Terraform's taint is not the provider's to see: a tainted
 * source is replaced after the move whatever it holds.
 */
export function resolveMove(
  current: TfObject,
  moved: MovedPrivate,
  jobs: readonly JobListItem[],
): MoveFinding {
  const routerId = stringOf(current, "router_id") ?? "";
  const description = stringOf(current, "description") ?? "";
  const { latest, superseded } = currentAttempt(
    attemptsOf(jobs, tagOf(stringOf(current, "name") ?? "")),
    tagOf(moved.moved_job_key),
  );
  const job = superseded ? undefined : latest?.job;
  const seq = job?.seq_id === undefined ? job?.id : `#${job.seq_id}`;
  if (job && !isTerminal(job.status))
    throw new UsageError(
      `router ${routerId}: job ${seq} of "${description}" (moved from terraform_data) is ${job.status}: ` +
        "plan again once it has ended; nothing was changed",
    );
  const fate = job
    ? `job ${seq} ${job.status}`
    : latest
      ? "another definition of it ran after this one"
      : "no job for this change is listed: it never reached the router";
  return {
    job,
    private: encoded({ ...moved, unresolved: false }),
    diagnostics:
      job?.status === "completed"
        ? []
        : [
            warningDiagnostic(
              `router ${routerId}: "${description}" moved from terraform_data without a completed job: ${fate}`,
              "The plan replaces it: the apply submits the change as a new job.",
            ),
          ],
  };
}

/**
 * Whether a moved object has to run its change again: its job did not complete (failed, or never reached the
 * router), or the configuration it adopts is another change than the job that ran (the configuration's job key
 * against the one moved). A provisioner's job left `express` out when the stack did (its key then counts it
 * false while it ran at once); the provider's has it, so both readings of an express job are the same change.
 */
export function movedObjectReplaces(
  priorPrivate: Uint8Array | undefined,
  prior: TfObject,
  definition: JobDefinition | undefined,
): boolean {
  const moved = movedPrivateOf(priorPrivate);
  if (!moved) return false;
  if (moved.unresolved)
    throw new UsageError(
      "a routerjobs_script moved from terraform_data is found at the service by the refresh: plan without -refresh=false",
    );
  if (stringOf(prior, "status") !== "completed") return true;
  // Not known until apply (the script comes from another resource): not the moved job's, as far as a plan knows.
  if (!definition) return true;
  const keys = [jobKey(definition)];
  if (definition.express_execute === DEFAULT_EXPRESS_EXECUTE) {
    const { express_execute: _, ...withoutExpress } = definition;
    keys.push(jobKey(withoutExpress));
  }
  return !keys.includes(moved.moved_job_key);
}
