/**
 * The digital twin: a fresh simulated router loaded with a live router's export, on which the declared jobs
 * run in Terraform's order. Nothing here talks to the service; the read happened before.
 */
import { RouterjobsError } from "../../errors.js";
import {
  type ChangeReachability,
  checkChange,
  type ServicePath,
} from "../../routeros/simulator/reachability/index.js";
import { SimulatedRouter } from "../../routeros/simulator/router.js";

export interface TwinJob {
  /** Where the job is declared (`office/edge-1/dns`), for the report. */
  readonly resource: string;
  readonly script: string;
}

export interface ScriptFailure {
  readonly resource: string;
  /** The router's own error text, as the job would report it. */
  readonly error: string;
  /** The line of the script where it stopped, when the interpreter knows it. */
  readonly line?: number;
}

export interface TwinRun {
  /** The twin's export before any job ran: the live configuration in the simulator's own words. */
  readonly before: string;
  readonly after: string;
  readonly ran: readonly string[];
  readonly failures: readonly ScriptFailure[];
  /** Jobs after a failure: Terraform would not start them (each section waits for the one before). */
  readonly skipped: readonly string[];
  /** Whether the service still reaches the router after the jobs, when a path was given. */
  readonly reachability?: ChangeReachability;
}

/** The twin cannot hold the live configuration (a menu the simulator does not know, say). */
export class TwinLoadError extends RouterjobsError {
  override readonly name = "TwinLoadError";
  override readonly code = "RJ_ERR_PLAN_FAILED";
}

async function exportOf(router: SimulatedRouter): Promise<string> {
  return (await router.runSource("/export")).join("\n");
}

/**
 * Loads `liveExport` into a fresh twin, then runs `jobs` in order until one fails; with `reach`, checks after
 * them that the service still reaches the router along that path (a failed job's partial change included, as
 * the router would keep it).
 */
export async function runOnTwin(
  liveExport: string,
  jobs: readonly TwinJob[],
  reach?: ServicePath,
): Promise<TwinRun> {
  // `:delay` in a script must not make a plan wait: the twin's clock does not matter to the diff.
  const router = new SimulatedRouter({ name: "twin", delayScale: 0 });
  const loaded = await router.runScript(liveExport);
  if (!loaded.ok)
    throw new TwinLoadError(
      `the twin cannot load the live configuration: ${loaded.error}${loaded.line === undefined ? "" : ` (export line ${loaded.line})`}`,
    );
  const before = await exportOf(router);
  let beforeJobs: SimulatedRouter | undefined;
  if (reach) {
    beforeJobs = new SimulatedRouter({ name: "twin", delayScale: 0 });
    beforeJobs.restore(router.snapshot());
  }
  const ran: string[] = [];
  const failures: ScriptFailure[] = [];
  const skipped: string[] = [];
  for (const job of jobs) {
    if (failures.length > 0) {
      skipped.push(job.resource);
      continue;
    }
    const outcome = await router.runScript(job.script);
    ran.push(job.resource);
    if (!outcome.ok)
      failures.push({
        resource: job.resource,
        error: outcome.error,
        ...(outcome.line === undefined ? {} : { line: outcome.line }),
      });
  }
  const reachability = beforeJobs && reach ? { reachability: checkChange(beforeJobs, router, reach) } : {};
  return { before, after: await exportOf(router), ran, failures, skipped, ...reachability };
}
