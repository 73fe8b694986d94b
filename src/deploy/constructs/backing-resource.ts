import type { IConstruct } from "constructs";
import { APPLY_JOB_ENV, type ApplyJob, INSTANCE_ID_ENV } from "../../contract/apply-job.js";
import { formatDuration } from "../../contract/duration.js";
import { STATE_IDENTITY_KEY, stateIdentityText } from "../terraform/state.js";
import { ConstructValidationError } from "./errors.js";
import { ensureStackProvider, type Framework, frameworkOf, requireBeside } from "./framework.js";
import type { TerraformDependable, TerraformResourceLike } from "./props.js";
import { createRouterjobsScript } from "./routerjobs-script.js";
import { TerraformData } from "./terraform-data.js";
import { escapeTemplate } from "./terraform-template.js";

export const BACKING_RESOURCES = ["terraform_data", "null_resource", "provider"] as const;
export type BackingResource = (typeof BACKING_RESOURCES)[number];

export interface BackingResourceProps {
  readonly kind: BackingResource;
  readonly create: ApplyJob;
  readonly destroy?: ApplyJob | undefined;
  /** The command that submits and confirms a job; `apply` is appended. */
  readonly cli: string;
  readonly dependsOn?: readonly TerraformDependable[] | undefined;
}

/**
 * The resource whose lifecycle carries one job. Under the provider, `routerjobs_script` itself: the provider
 * submits and confirms it, and Terraform records it once the job has ended. Otherwise a `terraform_data` or
 * `null_resource` with `job_key` in its replace triggers (a change of the job replaces it, so the creation-time
 * provisioner submits the job again), the job's identity and the destroy job in state (`reconcile` reads the
 * identity; a destroy-time provisioner may reference only `self`).
 */
export function createBackingResource(
  scope: IConstruct,
  id: string,
  props: BackingResourceProps,
): TerraformResourceLike {
  if (props.kind === "provider") return scriptResource(scope, id, props);
  const destroyJson = props.destroy === undefined ? undefined : escapeTemplate(JSON.stringify(props.destroy));
  const common = {
    dependsOn: props.dependsOn === undefined ? undefined : [...props.dependsOn],
    provisioners: [
      provisioner(props.cli, "create", escapeTemplate(JSON.stringify(props.create))),
      ...(destroyJson === undefined
        ? []
        : [
            provisioner(
              props.cli,
              "destroy",
              selfReference(props.kind === "null_resource" ? "triggers.destroy_job" : "input.destroy_job"),
            ),
          ]),
    ],
  };
  const triggers = { job_key: props.create.job_key };
  if (props.kind === "null_resource") {
    const { NullProvider, NullResource } = nullBindings(scope, frameworkOf(scope));
    ensureStackProvider(scope, "null", (stack) => new NullProvider(stack, "routerjobs-null-provider"));
    // null_resource has no `input`: the destroy job rides in the triggers, so changing it re-runs the job too.
    const all = destroyJson === undefined ? triggers : { ...triggers, destroy_job: destroyJson };
    return new NullResource(scope, id, { ...common, triggers: all });
  }
  // The job's identity in state (an in-place attribute: it never replaces the resource) lets `routerjobs
  // reconcile` and `deploy` find the job at the service from the state alone.
  const identity = escapeTemplate(stateIdentityText(props.create));
  return new TerraformData(scope, id, {
    ...common,
    triggersReplace: triggers,
    input: {
      [STATE_IDENTITY_KEY]: identity,
      ...(destroyJson === undefined ? {} : { destroy_job: destroyJson }),
    },
  });
}

/**
 * The job's definition as the provider's attributes. Its `name` is the construct path, as the provisioner's
 * job carries it in `resource`: two scripts of one router with one description keep apart in its job list.
 */
function scriptResource(scope: IConstruct, id: string, props: BackingResourceProps): TerraformResourceLike {
  const job = props.create;
  return createRouterjobsScript(
    scope,
    id,
    {
      router_id: job.router_id,
      script: escapeTemplate(job.script),
      description: escapeTemplate(job.description),
      name: escapeTemplate(job.resource),
      make_backup: job.make_backup,
      express: job.express_execute,
      needs_ack: job.needs_acknowledgement,
      notify_url: job.notify_url === undefined ? undefined : escapeTemplate(job.notify_url),
      timeout: formatDuration(job.timeout_ms),
      destroy_script: props.destroy === undefined ? undefined : escapeTemplate(props.destroy.script),
      rollback: job.rollback,
    },
    props.dependsOn,
  );
}

type Provisioner = { readonly type: "local-exec" } & Record<string, unknown>;

function provisioner(cli: string, phase: "create" | "destroy", job: string): Provisioner {
  const base: Provisioner = {
    type: "local-exec",
    command: escapeTemplate(`${cli} apply`),
    // No token, URL or CA here: `routerjobs apply` reads them from the environment that Terraform's
    // process passes on to local-exec, so no secret reaches cdk.tf.json, the plan or the state.
    environment: { [APPLY_JOB_ENV]: job, [INSTANCE_ID_ENV]: selfReference("id") },
    ...(phase === "destroy" ? { when: "destroy" as const } : {}),
  };
  // cdktf's type lacks `quiet`; extra keys pass through to the JSON (snake_case). Quiet keeps the command line
  // out of Terraform's output.
  return Object.assign(base, { quiet: true });
}

/**
 * `${self.<path>}` written out. cdktf's TerraformSelf gives the same text through a token, and every token
 * records a full stack trace when created, which made synth of a large fleet several times slower.
 */
function selfReference(path: string): string {
  return `\${self.${path}}`;
}

type NullBindings = {
  readonly NullProvider: new (scope: IConstruct, id: string) => unknown;
  readonly NullResource: new (scope: IConstruct, id: string, config: object) => TerraformResourceLike;
};

/**
 * `null_resource` needs generated provider bindings, which exist for cdktf only (`@cdktf/provider-null`, an
 * optional peer dependency, importing cdktf itself); nobody publishes `@cdktn/provider-null`.
 */
function nullBindings(scope: IConstruct, framework: Framework): NullBindings {
  const fail = (message: string) =>
    new ConstructValidationError(scope.node.path, [{ field: "resource", message }]);
  if (framework.name !== "cdktf") {
    throw fail(
      `"null_resource" needs null provider bindings, and ${framework.name} has none (no @cdktn/provider-null is ` +
        'published): use the default "terraform_data" (Terraform >= 1.4)',
    );
  }
  // Deep paths: the package index loads its data source too, for nothing.
  const provider = requireBeside<{ NullProvider: NullBindings["NullProvider"] }>(
    framework,
    "@cdktf/provider-null/lib/provider",
  );
  const resource = requireBeside<{ Resource: NullBindings["NullResource"] }>(
    framework,
    "@cdktf/provider-null/lib/resource",
  );
  if (provider === undefined || resource === undefined) {
    throw fail(
      '"null_resource" needs @cdktf/provider-null installed in the app (npm install @cdktf/provider-null)',
    );
  }
  return { NullProvider: provider.NullProvider, NullResource: resource.Resource };
}
