import { createHash } from "node:crypto";
import { Construct } from "constructs";
import {
  APPLY_JOB_VERSION,
  type ApplyJob,
  DEFAULT_EXPRESS_EXECUTE,
  type JobDefinition,
  type JobPhase,
  jobKey,
  type RollbackMode,
  type WaitMode,
} from "../../contract/apply-job.js";
import { parseDuration } from "../../contract/index.js";
import type { Wave } from "../../contract/wave-check.js";
import { armRevertScript } from "../../routeros/build/safe-change.js";
import { DEFAULT_ROUTEROS_VERSION } from "../../routeros/catalog/command-tree.js";
import { type BackingResource, createBackingResource } from "./backing-resource.js";
import type { RouterScriptProps, ScriptSource, TerraformDependable, TerraformResourceLike } from "./props.js";
import { noteVersionFallback } from "./router-os-version.js";
import { type ResolvedScript, validateRouterScript } from "./validation.js";

/**
 * One script for one router, submitted as an asynchronous job when Terraform creates the backing resource
 * and submitted again whenever anything that defines the job changes. It can be a `dependsOn` target.
 */
export class RouterScript extends Construct implements TerraformDependable {
  /** The job handed to `routerjobs apply` at creation, exactly as it appears in ROUTERJOBS_JOB. */
  readonly job: ApplyJob;
  /** The job handed to `routerjobs apply` at destroy, when a destroy script is set. */
  readonly destroyJob: ApplyJob | undefined;
  /** The `terraform_data`, `null_resource` or `routerjobs_script` that carries the job. */
  readonly resource: TerraformResourceLike;

  constructor(scope: Construct, id: string, props: RouterScriptProps) {
    super(scope, id);
    const resolved = resolve(this.node.path, props);
    validateRouterScript(this.node.path, resolved);
    noteVersionFallback(this, resolved.routerOsVersion, resolved.checkCommands);

    this.job = withSafeChange(
      withWave(
        applyJob(this.node.path, "create", resolved, resolved.script, resolved.description),
        props.rolloutWave,
      ),
      resolved.safeChange,
    );
    this.destroyJob =
      resolved.destroyScript === undefined
        ? undefined
        : applyJob(
            this.node.path,
            "destroy",
            resolved,
            resolved.destroyScript,
            resolved.destroyDescription ?? resolved.description,
          );
    this.resource = createBackingResource(this, "job", {
      kind: resolved.resource as BackingResource,
      create: this.job,
      destroy: this.destroyJob,
      cli: resolved.cli,
      dependsOn: props.dependsOn,
    });
  }

  /** Depending on a RouterScript means depending on its job's resource. */
  get fqn(): string {
    return this.resource.fqn;
  }
}

/** The wave rides after `job_key`, and only in a rollout: a job outside one keeps its JSON byte for byte. */
function withWave(job: ApplyJob, wave: Wave | undefined): ApplyJob {
  return wave === undefined ? job : { ...job, rollout: { wave: wave.wave, waves: wave.waves } };
}

/** After `job_key` (the armed script is in it already); only when asked for. */
function withSafeChange(job: ApplyJob, safeChange: SafeChange | undefined): ApplyJob {
  return safeChange === undefined
    ? job
    : { ...job, safe_change: { tag: safeChange.tag, confirm_within_ms: safeChange.confirmWithinMs } };
}

interface SafeChange {
  readonly tag: string;
  readonly confirmWithinMs: number;
}

function durationOrUndefined(text: string): number | undefined {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}

/**
 * The safe change's task and backup are named after the construct and its script, so that a change of either
 * arms a new one, and two routers' jobs never share a name.
 */
function safeChangeOf(path: string, script: string, props: RouterScriptProps): SafeChange | undefined {
  const confirmWithin = props.safeChange?.confirmWithin;
  // A bad duration is left to validation, which names it.
  const confirmWithinMs = confirmWithin === undefined ? undefined : durationOrUndefined(confirmWithin);
  if (confirmWithinMs === undefined) return undefined;
  const tag = createHash("sha256").update(`${path}\n${script}`).digest("hex").slice(0, 12);
  return { tag, confirmWithinMs };
}

/** Defaults in one place; they are repeated as `@default` in props.ts. */
function resolve(
  path: string,
  props: RouterScriptProps,
): ResolvedScript & ResolvedFlags & { safeChange?: SafeChange } {
  const description = props.description ?? path;
  const destroyScript = props.destroyScript === undefined ? undefined : joinScript(props.destroyScript);
  const script = joinScript(props.script);
  const safeChange = safeChangeOf(path, script, props);
  return {
    routerId: props.routerId,
    description,
    // The revert is armed before the script's first line; the limit and the checks count its lines.
    script: safeChange ? `${armRevertScript(safeChange.tag, safeChange.confirmWithinMs)}\n${script}` : script,
    safeChangeConfirmWithin: props.safeChange?.confirmWithin,
    ...(safeChange ? { safeChange } : {}),
    destroyScript,
    // Only a destroy job has a destroy description to check.
    destroyDescription: destroyScript === undefined ? undefined : (props.destroyDescription ?? description),
    notifyUrl: props.notifyUrl,
    timeout: props.timeout ?? "10m",
    waitFor: props.waitFor ?? "auto",
    resource: props.resource ?? "terraform_data",
    cli: props.cli ?? "routerjobs",
    routerOsVersion: props.routerOsVersion ?? DEFAULT_ROUTEROS_VERSION,
    checkCommands: props.checkCommands ?? true,
    api: props.api,
    rollback: props.rollback,
    makeBackup: props.makeBackup ?? true,
    // Left to `routerjobs apply` (express) when not declared: the job JSON of a stack that never set it keeps
    // its job_key (apply-job.ts), so upgrading runs nothing again.
    // The provider keys an undeclared express as it runs it, express: declared here, the job's key is the
    // provider's, and a rollout's wave check finds the job by it.
    expressExecute:
      props.expressExecute ?? (props.resource === "provider" ? DEFAULT_EXPRESS_EXECUTE : undefined),
    needsAcknowledgement: props.needsAcknowledgement ?? true,
  };
}

type FlagProps = Pick<RouterScriptProps, "makeBackup" | "expressExecute" | "needsAcknowledgement">;
type ResolvedFlags = Required<Omit<FlagProps, "expressExecute">> & Pick<FlagProps, "expressExecute">;

function joinScript(source: ScriptSource): string {
  return typeof source === "string" ? source : source.join("\n");
}

function applyJob(
  path: string,
  phase: JobPhase,
  resolved: ResolvedScript & ResolvedFlags,
  script: string,
  description: string,
): ApplyJob {
  const definition: JobDefinition = {
    phase,
    router_id: resolved.routerId,
    description,
    script,
    make_backup: resolved.makeBackup,
    ...(resolved.expressExecute === undefined ? {} : { express_execute: resolved.expressExecute }),
    needs_acknowledgement: resolved.needsAcknowledgement,
    ...(resolved.notifyUrl === undefined ? {} : { notify_url: resolved.notifyUrl }),
  };
  const { phase: _, ...fields } = definition;
  return {
    version: APPLY_JOB_VERSION,
    phase,
    resource: path,
    ...fields,
    wait_for: resolved.waitFor as WaitMode,
    timeout_ms: parseDuration(resolved.timeout),
    job_key: jobKey(definition),
    // Only when declared: a job without it keeps its JSON byte for byte. Outside job_key: the API a job is
    // submitted through does not change what runs on the router.
    ...(resolved.api === undefined ? {} : { api: resolved.api }),
    // Likewise only when declared, and outside job_key: asking for a rollback changes nothing on the router.
    ...(resolved.rollback === undefined ? {} : { rollback: resolved.rollback as RollbackMode }),
  } as ApplyJob;
}
