/**
 * The routerjobs resources in a Terraform state, read through `terraform show -json` (so any backend works:
 * local, S3, Terraform Cloud). Each job resource carries its identity in `input.routerjobs` (the constructs
 * and the plain-Terraform module write it), so nothing but the state is needed to find it at the service.
 */
import * as z from "zod";
import { EnvironmentError } from "../../errors.js";

/** What a job resource keeps in `input.routerjobs` (JSON): enough to find its attempts at the service. */
export const STATE_IDENTITY_KEY = "routerjobs";
export const stateIdentitySchema = z.object({
  router_id: z.string(),
  resource: z.string(),
  job_key: z.string(),
  description: z.string(),
});
export type StateIdentity = z.output<typeof stateIdentitySchema>;

/** The identity a job resource keeps in state, as the text of `input.routerjobs`. */
export function stateIdentityText(job: StateIdentity): string {
  const { router_id, resource, job_key, description } = job;
  return JSON.stringify({ router_id, resource, job_key, description });
}

export interface StateResource {
  /** Terraform's address, such as `terraform_data.office_edge-1_dns_job_1A2B3C4D` or `module.dns.terraform_data.job`. */
  readonly address: string;
  /** `self.id`: the instance that ran (or should have run) the job. */
  readonly instanceId: string;
  readonly tainted: boolean;
  readonly identity: StateIdentity;
}

interface ShownModule {
  readonly resources?: readonly {
    readonly address?: string;
    readonly type?: string;
    readonly mode?: string;
    readonly tainted?: boolean;
    readonly values?: { readonly id?: unknown; readonly input?: unknown };
  }[];
  readonly child_modules?: readonly ShownModule[];
}

/** Every routerjobs job resource of `terraform show -json` output; other resources are left alone. */
export function jobResourcesOf(shown: unknown): StateResource[] {
  const root = (shown as { values?: { root_module?: ShownModule } } | null)?.values?.root_module;
  const found: StateResource[] = [];
  const visit = (module: ShownModule) => {
    for (const resource of module.resources ?? []) {
      if (resource.mode !== "managed" || resource.type !== "terraform_data") continue;
      const input = resource.values?.input as Record<string, unknown> | null | undefined;
      const raw = input?.[STATE_IDENTITY_KEY];
      if (typeof raw !== "string" || typeof resource.values?.id !== "string") continue;
      let identity: StateIdentity;
      try {
        identity = stateIdentitySchema.parse(JSON.parse(raw));
      } catch {
        throw new EnvironmentError(
          `${resource.address}: input.${STATE_IDENTITY_KEY} in the Terraform state is not a routerjobs identity`,
        );
      }
      found.push({
        address: String(resource.address),
        instanceId: resource.values.id,
        tainted: resource.tainted === true,
        identity,
      });
    }
    for (const child of module.child_modules ?? []) visit(child);
  };
  if (root) visit(root);
  return found;
}
