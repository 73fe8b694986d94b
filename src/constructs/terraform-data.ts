import {
  anyToHclTerraform,
  anyToTerraform,
  hashMapper,
  hashMapperHcl,
  type TerraformMetaArguments,
  TerraformResource,
} from "cdktf";
import type { Construct } from "constructs";

export interface TerraformDataConfig extends TerraformMetaArguments {
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
}

/**
 * Terraform's built-in `terraform_data` resource (Terraform >= 1.4, no provider).
 *
 * cdktf's own `DataResource` attaches a validation that runs `terraform version` during `app.synth()`, so a
 * stack using it cannot be synthesized where Terraform is not installed (a CI job that only synthesizes, a
 * laptop that hands the JSON to another machine). This class writes the same JSON without that check; the
 * version requirement is enforced by Terraform itself, which refuses an unknown resource type at init/plan.
 */
export class TerraformData extends TerraformResource {
  static readonly tfResourceType = "terraform_data";

  private readonly config: TerraformDataConfig;

  constructor(scope: Construct, id: string, config: TerraformDataConfig = {}) {
    super(scope, id, {
      terraformResourceType: TerraformData.tfResourceType,
      terraformGeneratorMetadata: { providerName: "terraform" },
      dependsOn: config.dependsOn,
      lifecycle: config.lifecycle,
      provisioners: config.provisioners,
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
}
