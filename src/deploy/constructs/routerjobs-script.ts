import type { IConstruct } from "constructs";
import { PROVIDER_SOURCE, PROVIDER_TYPE, SCRIPT_RESOURCE_TYPE } from "../terraform/provider-address.js";
import { type CdkModule, ensureStackProvider, type Framework, frameworkOf } from "./framework.js";
import type { TerraformDependable, TerraformResourceLike } from "./props.js";

/**
 * The attributes of the provider's `routerjobs_script` (docs/provider.md) as the constructs set them, named as
 * its schema names them; an absent one is left out, and the provider's default applies.
 */
export interface RouterjobsScriptAttributes {
  readonly router_id: string;
  readonly script: string;
  readonly description: string;
  /** The change's name in the router's job list: the construct path, so two scripts never share a marker. */
  readonly name: string;
  readonly make_backup: boolean;
  readonly express?: boolean | undefined;
  readonly needs_ack: boolean;
  readonly notify_url?: string | undefined;
  readonly timeout: string;
  readonly destroy_script?: string | undefined;
  /** `on-failure`: the provider restores the router from the job's backup when the job fails. */
  readonly rollback?: string | undefined;
}

interface Classes {
  readonly Script: new (
    scope: IConstruct,
    id: string,
    attributes: RouterjobsScriptAttributes,
    dependsOn: readonly TerraformDependable[] | undefined,
  ) => TerraformResourceLike;
  readonly Provider: new (scope: IConstruct, id: string) => unknown;
}

const classes = new WeakMap<CdkModule, Classes>();

/**
 * The classes for one framework copy, written like cdktf's generated bindings (there is no published
 * `@cdktf/provider-routerjobs`, and generating one would need the provider at synth time).
 */
function classesFor(framework: Framework): Classes {
  const known = classes.get(framework.cdk);
  if (known !== undefined) return known;
  const { TerraformResource, TerraformProvider } = framework.cdk;
  const metadata = { providerName: PROVIDER_TYPE };
  class Script extends TerraformResource {
    private readonly attributes: RouterjobsScriptAttributes;

    constructor(
      scope: IConstruct,
      id: string,
      attributes: RouterjobsScriptAttributes,
      dependsOn: readonly TerraformDependable[] | undefined,
    ) {
      super(scope as never, id, {
        terraformResourceType: SCRIPT_RESOURCE_TYPE,
        terraformGeneratorMetadata: metadata,
        dependsOn: dependsOn === undefined ? undefined : [...dependsOn],
      });
      this.attributes = attributes;
      // The same construct under the provisioner form was `terraform_data.<this id>`: a stack that switches to
      // the provider moves each job resource's state across (the provider's MoveResourceState finds what its
      // job did), so nothing runs again. Terraform skips a moved block whose source is not in the state.
      (this as unknown as { moveFromId(id: string): void }).moveFromId(
        `terraform_data.${this.friendlyUniqueId}`,
      );
    }

    protected override synthesizeAttributes(): Record<string, unknown> {
      return { ...this.attributes };
    }

    protected override synthesizeHclAttributes(): Record<string, unknown> {
      const attributes = this.synthesizeAttributes();
      return Object.fromEntries(
        Object.entries(attributes)
          .filter(([, value]) => value !== undefined)
          .map(([key, value]) => [
            key,
            { value, isBlock: false, type: "simple", storageClassType: typeof value },
          ]),
      );
    }
  }
  // No settings: `provider "routerjobs" {}` takes the service URL, CA and token from the environment that
  // `routerjobs apply` reads, so nothing secret or machine-specific is in the synthesized JSON.
  class Provider extends TerraformProvider {
    constructor(scope: IConstruct, id: string) {
      super(scope as never, id, {
        terraformResourceType: PROVIDER_TYPE,
        terraformGeneratorMetadata: metadata,
        terraformProviderSource: PROVIDER_SOURCE,
      });
    }

    protected override synthesizeAttributes(): Record<string, unknown> {
      return {};
    }
  }
  const created: Classes = { Script, Provider };
  classes.set(framework.cdk, created);
  return created;
}

/**
 * A `routerjobs_script` resource in the stack that holds `scope`, with a `routerjobs` provider block added to
 * that stack unless it has one (a user's own, with settings, is kept).
 */
export function createRouterjobsScript(
  scope: IConstruct,
  id: string,
  attributes: RouterjobsScriptAttributes,
  dependsOn?: readonly TerraformDependable[],
): TerraformResourceLike {
  const { Script, Provider } = classesFor(frameworkOf(scope));
  ensureStackProvider(scope, PROVIDER_TYPE, (stack) => new Provider(stack, "routerjobs-provider"));
  return new Script(scope, id, attributes, dependsOn);
}
