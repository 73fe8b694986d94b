import { NullProvider } from "@cdktf/provider-null/lib/provider/index.js";
import { Resource as NullResource } from "@cdktf/provider-null/lib/resource/index.js";
import {
  type ITerraformDependable,
  type LocalExecProvisioner,
  TerraformProvider,
  type TerraformResource,
  TerraformStack,
} from "cdktf";
import type { Construct } from "constructs";
import { APPLY_JOB_ENV, type ApplyJob, INSTANCE_ID_ENV } from "../contract/apply-job.js";
import { STATE_IDENTITY_KEY, stateIdentityText } from "../terraform/state.js";
import { TerraformData } from "./terraform-data.js";
import { escapeTemplate } from "./terraform-template.js";

export const BACKING_RESOURCES = ["terraform_data", "null_resource"] as const;
export type BackingResource = (typeof BACKING_RESOURCES)[number];

export interface BackingResourceProps {
  readonly kind: BackingResource;
  readonly create: ApplyJob;
  readonly destroy?: ApplyJob | undefined;
  /** The command that submits and confirms a job; `apply` is appended. */
  readonly cli: string;
  readonly dependsOn?: readonly ITerraformDependable[] | undefined;
}

/**
 * The resource whose lifecycle carries one job: `job_key` in its replace triggers (a change of the job
 * replaces it, so the creation-time provisioner submits the job again), the job's identity and the destroy job
 * in state (`reconcile` reads the identity; a destroy-time provisioner may reference only `self`).
 */
export function createBackingResource(
  scope: Construct,
  id: string,
  props: BackingResourceProps,
): TerraformResource {
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
    ensureNullProvider(scope);
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

function provisioner(cli: string, phase: "create" | "destroy", job: string): LocalExecProvisioner {
  const base: LocalExecProvisioner = {
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

const stacksWithNullProvider = new WeakSet<TerraformStack>();

/** null_resource needs a configured `null` provider in its stack; add one unless the stack has it. */
function ensureNullProvider(scope: Construct): void {
  const stack = TerraformStack.of(scope);
  if (stacksWithNullProvider.has(stack)) return;
  const present = stack.node
    .findAll()
    .some((node) => node instanceof TerraformProvider && node.terraformResourceType === "null");
  if (!present) new NullProvider(stack, "routerjobs-null-provider");
  stacksWithNullProvider.add(stack);
}
