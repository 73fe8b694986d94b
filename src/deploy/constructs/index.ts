/**
 * cdktf constructs for routerjobs (package export `routerjobs/constructs`). Everything that imports cdktf
 * lives in this folder.
 */

export {
  APPLY_JOB_ENV,
  APPLY_JOB_VERSION,
  type ApplyJob,
  applyJobSchema,
  INSTANCE_ID_ENV,
  idempotencyKey,
  type JobDefinition,
  type JobPhase,
  jobKey,
  parseApplyJob,
  type WaitMode,
} from "../../contract/apply-job.js";
/** The RouterOS helpers (plain functions, no cdktf), re-exported for stacks: `helpers.firewallFilter(...)`. */
export * as helpers from "../../routeros/build/helpers/index.js";
export type { BackingResource } from "./backing-resource.js";
export { ConstructValidationError } from "./errors.js";
export { Fleet, type FleetProps, type FleetRouter } from "./fleet.js";
export type {
  RouterJobOptions,
  RouterScriptContent,
  RouterScriptProps,
  RouterSection,
  ScriptSource,
} from "./props.js";
export {
  ROLLOUT_FAILURE_MODES,
  type RolloutFailureMode,
  type RolloutProps,
} from "./rollout.js";
export { checks } from "./rollout-checks.js";
export { WaveGate, type WaveGateProps } from "./rollout-gate.js";
export type { WaveBoundary, WaveSpec } from "./rollout-waves.js";
export { RouterConfig, type RouterConfigProps } from "./router-config.js";
export { RouterScript } from "./router-script.js";
export { TerraformData, type TerraformDataConfig } from "./terraform-data.js";
