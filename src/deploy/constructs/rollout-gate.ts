import { createHash } from "node:crypto";
import { Construct } from "constructs";
import {
  WAVE_CHECK_ENV,
  WAVE_CHECK_VERSION,
  type Wave,
  type WaveCheck,
  type WaveFailureMode,
} from "../../contract/wave-check.js";
import { frameworkOf } from "./framework.js";
import type { TerraformDependable, TerraformResourceLike } from "./props.js";
import type { RouterConfig } from "./router-config.js";
import { TerraformData } from "./terraform-data.js";
import { escapeTemplate } from "./terraform-template.js";

export interface WaveGateProps {
  readonly wave: Wave;
  /** The routers of the wave, by name. */
  readonly configs: readonly { readonly name: string; readonly config: RouterConfig }[];
  /** The read-only check script, when the rollout has one. */
  readonly script?: string | undefined;
  readonly soakMs: number;
  readonly timeoutMs: number;
  /** `rollback-wave`: a failed check restores the wave's routers from their jobs' backups. @default "stop" */
  readonly onFailure?: WaveFailureMode;
  /** The command that runs `verify`, as a shell reads it. */
  readonly cli: string;
}

/**
 * The point between two waves: one `terraform_data` that depends on every job of its wave and that the first
 * job of each router of the next wave depends on, so n routers make 2n dependency edges rather than n x n.
 * With a check or a soak, its creation-time provisioner runs `routerjobs verify`, and a failure there stops
 * Terraform before the next wave, as a failed job does.
 */
export class WaveGate extends Construct implements TerraformDependable {
  readonly resource: TerraformResourceLike;
  /** What `routerjobs verify` gets, or undefined when the gate only orders the waves. */
  readonly check: WaveCheck | undefined;

  constructor(scope: Construct, id: string, props: WaveGateProps) {
    super(scope, id);
    // A router whose sections are all empty has no job to wait for.
    const withJobs = props.configs.filter(({ config }) => config.sections.length > 0);
    const rollback = props.onFailure === "rollback-wave";
    this.check =
      props.script === undefined && props.soakMs === 0
        ? undefined
        : {
            version: WAVE_CHECK_VERSION,
            resource: this.node.path,
            wave: props.wave,
            routers: props.configs.map(({ name, config }) => ({
              name,
              router_id: config.routerId,
              // Which jobs' backups restore the router: those declared when the Fleet was built.
              ...(rollback ? { jobs: waveJobs(config) } : {}),
            })),
            ...(props.script === undefined ? {} : { script: props.script }),
            soak_ms: props.soakMs,
            timeout_ms: props.timeoutMs,
            // Only with rollback-wave: a rollout that stops keeps its check JSON byte for byte.
            ...(rollback ? { on_failure: "rollback-wave" as const } : {}),
          };
    const { Lazy } = frameworkOf(this).cdk;
    this.resource = new TerraformData(this, "gate", {
      dependsOn: withJobs.map(({ config }) => config),
      triggersReplace: {
        // Any job of the wave that runs again (a changed section, a section added later) replaces the gate, so
        // the wave is checked again before the next one goes on. Read at synth, after every addSection.
        jobs: Lazy.stringValue({ produce: () => digest(withJobs.flatMap(({ config }) => jobKeys(config))) }),
        ...(this.check === undefined ? {} : { check: digest([JSON.stringify(this.check)]) }),
      },
      provisioners:
        this.check === undefined
          ? undefined
          : [
              Object.assign(
                {
                  type: "local-exec",
                  command: escapeTemplate(`${props.cli} verify`),
                  environment: { [WAVE_CHECK_ENV]: escapeTemplate(JSON.stringify(this.check)) },
                },
                // Keeps the command line out of Terraform's output, as the jobs' provisioners do.
                { quiet: true },
              ),
            ],
    });
  }

  get fqn(): string {
    return this.resource.fqn;
  }
}

function jobKeys(config: RouterConfig): string[] {
  return config.sections.map((section) => section.job.job_key);
}

function waveJobs(config: RouterConfig): { resource: string; job_key: string }[] {
  return config.sections.map((section) => ({ resource: section.job.resource, job_key: section.job.job_key }));
}

function digest(parts: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}
