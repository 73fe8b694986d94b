import { describeValue, parseDuration } from "../../contract/index.js";
import { commandTreeFor } from "../../routeros/catalog/command-tree.js";
import { ConstructValidationError } from "./errors.js";
import type { ScriptSource } from "./props.js";
import { checkProblem } from "./rollout-checks.js";
import { assignWaves, type WaveSpec } from "./rollout-waves.js";

/** What a failed job or check does to the rollout. */
export const ROLLOUT_FAILURE_MODES = ["stop", "rollback-wave"] as const;
export type RolloutFailureMode = (typeof ROLLOUT_FAILURE_MODES)[number];

/** A Fleet's rollout: which routers change first, and what is checked before the next ones do. */
export interface RolloutProps<R> {
  /**
   * The waves: cumulative boundaries in fleet order, counts or percentages (`[1, "10%", "100%"]`: the first
   * router, then up to ceil(10% of the fleet), then the rest), or a function returning each router's wave
   * number (1 first). Every job of a wave starts only after every job of the wave before completed and its
   * check passed; routers of one wave run in parallel (bounded by Terraform's `-parallelism`).
   */
  readonly waves: WaveSpec<R>;
  /**
   * A read-only RouterOS script run on each router of a wave once its jobs completed (see `checks` for typed
   * ones). It fails by raising an error (`:error "why"`); a failure stops the rollout and prints the output.
   * Only reading commands are allowed (print, get, find, export, monitor, ping).
   * @default - no check: a wave passes when its jobs completed
   */
  readonly verify?: ScriptSource;
  /**
   * How long to wait after a wave's jobs completed before checking it, like `30s` or `5m`, so that a change
   * that breaks something slowly (a lease, a routing protocol) shows before the next wave.
   * @default - no wait
   */
  readonly soak?: string;
  /**
   * How long the checks of one wave may take after the soak, like `2m`.
   * @default "2m"
   */
  readonly checkTimeout?: string;
  /**
   * What a failure does. `"stop"`: no router of a later wave is touched. `"rollback-wave"`: the same, and the
   * failed wave's routers are restored from their jobs' backups: a router whose job failed by its own apply
   * (every job gets `rollback: "on-failure"`), every router of the wave by the wave's gate when its check
   * fails (docs/rollback.md). Needs `makeBackup` (the default) and not `api: "sdx"`.
   * @default "stop"
   */
  readonly onFailure?: RolloutFailureMode;
}

/** The rollout after defaults and checks: what the Fleet builds gates from. */
export interface ResolvedRollout {
  /** Router indexes of each wave, in wave order. */
  readonly waves: readonly (readonly number[])[];
  readonly script: string | undefined;
  readonly soakMs: number;
  readonly timeoutMs: number;
  readonly onFailure: RolloutFailureMode;
}

/** Validates the rollout against the fleet; one ConstructValidationError lists every broken rule. */
export function resolveRollout<R>(
  path: string,
  routers: readonly R[],
  rollout: RolloutProps<R>,
  routerOsVersion: string | undefined,
  jobOptions: { readonly makeBackup?: boolean | undefined; readonly api?: string | undefined } = {},
): ResolvedRollout {
  const problems: { field: string; message: string }[] = [];
  const script =
    rollout.verify === undefined
      ? undefined
      : typeof rollout.verify === "string"
        ? rollout.verify
        : rollout.verify.join("\n");
  if (script !== undefined) {
    const problem =
      script.trim() === "" ? "must not be empty" : checkProblem(script, commandTreeFor(routerOsVersion));
    if (problem !== undefined) problems.push({ field: "rollout.verify", message: problem });
  }
  const duration = (field: string, text: string | undefined, fallback: number): number => {
    if (text === undefined) return fallback;
    try {
      return parseDuration(text);
    } catch {
      problems.push({
        field,
        message: `must be a number followed by ms, s, m or h, like 30s or 5m (got ${describeValue(text)})`,
      });
      return fallback;
    }
  };
  const soakMs = duration("rollout.soak", rollout.soak, 0);
  const timeoutMs = duration("rollout.checkTimeout", rollout.checkTimeout, 120_000);
  const onFailure: unknown = rollout.onFailure ?? "stop";
  if (!ROLLOUT_FAILURE_MODES.includes(onFailure as RolloutFailureMode)) {
    problems.push({
      field: "rollout.onFailure",
      message: `must be "stop" or "rollback-wave" (got ${describeValue(onFailure)})`,
    });
  } else if (onFailure === "rollback-wave") {
    if (jobOptions.makeBackup === false)
      problems.push({
        field: "rollout.onFailure",
        message:
          '"rollback-wave" needs makeBackup: true: routers are restored from the backups their jobs take',
      });
    if (jobOptions.api === "sdx")
      problems.push({
        field: "rollout.onFailure",
        message:
          '"rollback-wave" cannot work with api: "sdx": the wave\'s gate finds the backups by the jobs\' seq_id, which the sites API does not list (docs/rollback.md)',
      });
  }
  if (problems.length > 0) throw new ConstructValidationError(path, problems);
  return {
    waves: assignWaves(path, routers, rollout.waves),
    script,
    soakMs,
    timeoutMs,
    onFailure: onFailure as RolloutFailureMode,
  };
}
