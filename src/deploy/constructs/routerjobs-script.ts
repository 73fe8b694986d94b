import type { IConstruct } from "constructs";
import { PROVIDER_SOURCE, PROVIDER_TYPE, SCRIPT_RESOURCE_TYPE } from "../terraform/provider-address.js";
import { type CdkModule, type Framework, frameworkOf } from "./framework.js";
import type { TerraformDependable, TerraformResourceLike } from "./props.js";

/** The attributes of the provider's `routerjobs_script` (docs/provider.md), as the constructs set them. */
export interface RouterjobsScriptConfig {
  readonly routerId: string;
  readonly script: string;
  readonly description: string;
  /** The change's name in the router's job list: the construct path, so two scripts never share a marker. */
  readonly name: string;
  readonly makeBackup: boolean;
  /** Left out, the provider's default (express) applies, as `routerjobs apply` does. */
  readonly express?: boolean | undefined;
  readonly needsAck: boolean;
  readonly notifyUrl?: string | undefined;
  readonly timeout: string;
  readonly destroyScript?: string | undefined;
  /** `on-failure`: the provider restores the router from the job's backup when the job fails. */
  readonly rollback?: string | undefined;
  readonly dependsOn?: readonly TerraformDependable[] | undefined;
}

interface Classes {
  readonly Script: new (
    scope: IConstruct,
    id: string,
    config: RouterjobsScriptConfig,
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
    private readonly config: RouterjobsScriptConfig;

    constructor(scope: IConstruct, id: string, config: RouterjobsScriptConfig) {
      super(scope as never, id, {
        terraformResourceType: SCRIPT_RESOURCE_TYPE,
        terraformGeneratorMetadata: metadata,
        dependsOn: config.dependsOn === undefined ? undefined : [...config.dependsOn],
      });
      this.config = config;
    }

    protected override synthesizeAttributes(): Record<string, unknown> {
      const config = this.config;
      return {
        router_id: config.routerId,
        script: config.script,
        description: config.description,
        name: config.name,
        make_backup: config.makeBackup,
        express: config.express,
        needs_ack: config.needsAck,
        notify_url: config.notifyUrl,
        timeout: config.timeout,
        destroy_script: config.destroyScript,
        rollback: config.rollback,
      };
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

const stacksWithProvider = new WeakSet<IConstruct>();

/**
 * A `routerjobs_script` resource in the stack that holds `scope`, with a `routerjobs` provider block added to
 * that stack unless it has one (a user's own, with settings, is kept).
 */
export function createRouterjobsScript(
  scope: IConstruct,
  id: string,
  config: RouterjobsScriptConfig,
): TerraformResourceLike {
  const framework = frameworkOf(scope);
  const { Script, Provider } = classesFor(framework);
  const stack = framework.cdk.TerraformStack.of(scope as never);
  if (!stacksWithProvider.has(stack)) {
    const present = stack.node
      .findAll()
      .some(
        (node) =>
          node instanceof framework.cdk.TerraformProvider && node.terraformResourceType === PROVIDER_TYPE,
      );
    if (!present) new Provider(stack, "routerjobs-provider");
    stacksWithProvider.add(stack);
  }
  return new Script(scope, id, config);
}
