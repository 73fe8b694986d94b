import type { IConstruct } from "constructs";
import { type CdkModule, type Framework, frameworkOf } from "./framework.js";
import type { TerraformDependable, TerraformResourceLike } from "./props.js";

export interface TerraformDataConfig {
  /**
   * Stored in state; a change is an in-place update (provisioners do not run again).
   * @default - none
   */
  readonly input?: Readonly<Record<string, string>>;
  /**
   * A change replaces the resource, so its creation-time provisioners run again.
   * @default - none
   */
  readonly triggersReplace?: Readonly<Record<string, string>>;
  /**
   * Resources this one waits for.
   * @default - none
   */
  readonly dependsOn?: readonly TerraformDependable[] | undefined;
  /**
   * Provisioners as the framework takes them (`{ type: "local-exec", command, environment, when }`).
   * @default - none
   */
  readonly provisioners?: readonly ({ readonly type: string } & Record<string, unknown>)[] | undefined;
}

export interface TerraformDataResource extends TerraformResourceLike {
  /** The instance id Terraform assigns (`${terraform_data.x.id}`). */
  readonly id: string;
}

export interface TerraformDataConstructor {
  /** Builds the resource with the framework (cdktf or cdktn) of the stack that holds `scope`. */
  new (scope: IConstruct, id: string, config?: TerraformDataConfig): TerraformDataResource;
  readonly tfResourceType: "terraform_data";
}

const classes = new WeakMap<
  CdkModule,
  new (
    scope: IConstruct,
    id: string,
    config: TerraformDataConfig,
  ) => TerraformDataResource
>();

/**
 * The class for one framework copy. cdktf's own `DataResource` attaches a validation that runs `terraform
 * version` during `app.synth()`, so a stack using it cannot be synthesized where Terraform is not installed;
 * this class writes the same JSON without that check (Terraform itself refuses an unknown resource type).
 */
function classFor(framework: Framework) {
  const known = classes.get(framework.cdk);
  if (known !== undefined) return known;
  const { TerraformResource, hashMapper, hashMapperHcl, anyToTerraform, anyToHclTerraform } = framework.cdk;
  const created = class TerraformData extends TerraformResource {
    private readonly config: TerraformDataConfig;

    constructor(scope: IConstruct, id: string, config: TerraformDataConfig) {
      super(scope as never, id, {
        terraformResourceType: "terraform_data",
        terraformGeneratorMetadata: { providerName: "terraform" },
        dependsOn: config.dependsOn === undefined ? undefined : [...config.dependsOn],
        provisioners: config.provisioners as never,
      });
      this.config = config;
    }

    get id(): string {
      return this.getStringAttribute("id");
    }

    protected override synthesizeAttributes(): Record<string, unknown> {
      return {
        input: hashMapper(anyToTerraform)(this.config.input),
        triggers_replace: hashMapper(anyToTerraform)(this.config.triggersReplace),
      };
    }

    protected override synthesizeHclAttributes(): Record<string, unknown> {
      return {
        input: hashMapperHcl(anyToHclTerraform)(this.config.input),
        triggers_replace: hashMapperHcl(anyToHclTerraform)(this.config.triggersReplace),
      };
    }
  };
  classes.set(framework.cdk, created);
  return created;
}

/**
 * Terraform's built-in `terraform_data` resource (Terraform >= 1.4, no provider), built from the cdktf or
 * cdktn copy of the stack it is created in. `new TerraformData(stack, id, config)` as with any resource class.
 */
export const TerraformData = Object.assign(
  function TerraformData(
    scope: IConstruct,
    id: string,
    config: TerraformDataConfig = {},
  ): TerraformDataResource {
    return new (classFor(frameworkOf(scope)))(scope, id, config);
  },
  { tfResourceType: "terraform_data" as const },
) as unknown as TerraformDataConstructor;
