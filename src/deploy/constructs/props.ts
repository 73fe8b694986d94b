import type { IConstruct } from "constructs";
import type { ApiProfileName } from "../../contract/api-profile-name.js";
import type { RollbackMode, WaitMode } from "../../contract/apply-job.js";
import type { Wave } from "../../contract/wave-check.js";
import type { BackingResource } from "./backing-resource.js";

/**
 * A script as RouterOS text, or as lines (typically from the helpers in `routerjobs/routeros/helpers`),
 * joined with newlines.
 */
/**
 * A `dependsOn` target of either framework: cdktf's and cdktn's `ITerraformDependable` have this one member,
 * so routerjobs' public types name neither package.
 */
export interface TerraformDependable {
  readonly fqn: string;
}

/** A Terraform resource built by routerjobs, whichever framework (cdktf or cdktn) built it. */
export interface TerraformResourceLike extends IConstruct, TerraformDependable {
  readonly terraformResourceType: string;
  readonly friendlyUniqueId: string;
  addOverride(path: string, value: unknown): void;
}

export type ScriptSource = string | readonly string[];

/** How a job is submitted and awaited; shared by RouterScript, RouterConfig and Fleet (a section overrides). */
export interface RouterJobOptions {
  /**
   * Take a backup of the router's configuration before the script runs, so that a failed script can be
   * rolled back from it.
   * @default true
   */
  readonly makeBackup?: boolean;
  /**
   * Ask the service to run the job at once instead of at its next scheduler tick (10 s by default). Set false
   * to let the service batch the job with others at its tick.
   * @default true (decided by `routerjobs apply`, so the job JSON of a stack that does not set it stays as it
   * was; see docs/decisions.md)
   */
  readonly expressExecute?: boolean;
  /**
   * Wait for the router to acknowledge the job. Set false only for scripts that cut the router off before it
   * can report (a reboot): the job is then completed at submission and its errors are not reported.
   * @default true
   */
  readonly needsAcknowledgement?: boolean;
  /**
   * An https URL the service posts status notifications to.
   * @default - none; `routerjobs apply` may use ROUTERJOBS_RECEIVER_URL from its environment
   */
  readonly notifyUrl?: string;
  /**
   * How long `routerjobs apply` waits for the job to finish before failing the apply, like `90s` or `10m`.
   * @default "10m"
   */
  readonly timeout?: string;
  /**
   * How `routerjobs apply` learns that the job finished: `poll` the job list, wait for notifications at a
   * `receiver`, or `auto` (the receiver when one is configured, else polling).
   * @default "auto"
   */
  readonly waitFor?: WaitMode;
  /**
   * The Terraform resource that carries the job: `terraform_data` (built into Terraform >= 1.4, no provider;
   * `routerjobs deploy` keeps the exactly-once promise), `null_resource` (needs the hashicorp/null provider,
   * added to the stack when missing), or `provider`: the routerjobs provider's own `routerjobs_script`, which
   * keeps that promise under a plain `terraform apply` and `cdktf deploy` (`routerjobs provider install` first;
   * docs/provider.md). Under the provider, `api`, `waitFor` and the service settings are the provider block's,
   * and `rollback` and `safeChange` are not available yet.
   * @default "terraform_data"
   */
  readonly resource?: BackingResource;
  /**
   * The command that runs `apply`, as a shell would read it (for example `npx routerjobs`).
   * @default "routerjobs"
   */
  readonly cli?: string;
  /**
   * The RouterOS version the router runs, like `7.24` or `7.24.1`. At synth time every menu, command and
   * argument of the scripts is checked against that version's command tree. A version routerjobs has no tree
   * for is checked against RouterOS 7.24's, with a warning.
   * @default "7.24"
   */
  readonly routerOsVersion?: string;
  /**
   * The service's job API: `spec`, the spec's `/api/...` paths (our service and the public service), or
   * `sdx`, the public service's sites API (docs/public-service.md). `routerjobs apply --api` overrides it; it
   * wins over `ROUTERJOBS_API`. The sites API takes no `notify_url`: with `sdx`, apply confirms by polling.
   * @default - `ROUTERJOBS_API`, else `spec`
   */
  readonly api?: ApiProfileName;
  /**
   * `"on-failure"`: when the job fails, `routerjobs apply` restores the router from the backup the job took
   * before its script (so `makeBackup` must stay true), says so in the failure line, and still fails the
   * resource. A restore reboots the router. With `api: "sdx"` it restores the service's backup of the job
   * (docs/rollback.md).
   * @default - no rollback: a failed job leaves the router as its script left it
   */
  readonly rollback?: RollbackMode;
  /**
   * Undo the change on the router itself if the service cannot reach it afterwards (docs/safe-change.md):
   * before the script, the job saves a backup and arms a scheduler task that loads it after `confirmWithin`
   * (like `2m`, 10s to 1h); `routerjobs apply` then submits a follow-up job that disarms it once the service
   * reaches the router again. If it cannot, the revert fires and apply fails with "reverted on <router>".
   * Costs one more job per change, about 300 characters of the script's 2000, and the wait when it reverts.
   * @default - off: a change that cuts the service off stays on the router
   */
  readonly safeChange?: SafeChangeOptions;
  /**
   * Check the names in the scripts against the RouterOS command tree. Set false for scripts that use menus or
   * arguments the tree lacks (an extra package, hardware-specific settings); the syntax is still checked.
   * @default true
   */
  readonly checkCommands?: boolean;
}

/** A change that undoes itself when the service cannot reach the router after it. */
export interface SafeChangeOptions {
  /** How long the service has to reach the router again before the router restores itself, like `2m`. */
  readonly confirmWithin: string;
}

/** What one job runs. */
export interface RouterScriptContent extends RouterJobOptions {
  /** RouterOS commands, at most 2000 characters once joined; checked by the RouterOS parser at synth time. */
  readonly script: ScriptSource;
  /**
   * Shown in the service's orchestration log; at most 100 characters.
   * @default - the construct path, e.g. `office/edge-1/firewall`
   */
  readonly description?: string;
  /**
   * Commands that undo the script, submitted when Terraform destroys the resource. That includes a
   * replacement: a changed script first runs the old destroy script, then the new script.
   * @default - nothing runs at destroy
   */
  readonly destroyScript?: ScriptSource;
  /**
   * Description of the destroy job.
   * @default - the description
   */
  readonly destroyDescription?: string;
}

export interface RouterScriptProps extends RouterScriptContent {
  /** The router's identifier at the service: a lowercase UUID. */
  readonly routerId: string;
  /**
   * Resources or constructs (a RouterScript, a RouterConfig) whose jobs must finish first.
   * @default - none
   */
  readonly dependsOn?: readonly TerraformDependable[];
  /**
   * The rollout wave of the job (a Fleet with `rollout` sets it): carried in the job for progress lines, and
   * outside `job_key`, so a change of waves never runs a job again.
   * @default - not part of a rollout
   */
  readonly rolloutWave?: Wave;
}

/** One named step of a RouterConfig; options left out come from the RouterConfig. */
export interface RouterSection extends RouterScriptContent {
  /** Construct id of the section, unique within its router, e.g. `firewall`. */
  readonly name: string;
}
