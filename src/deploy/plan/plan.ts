/**
 * `routerjobs plan` as a library: which jobs would run on each router, and what they would do to it, found on
 * a twin of the router's live configuration. Read-only by construction: the only thing it asks of the
 * outside world is `readConfig`, called once per router that has a job to run.
 */

import { RouterjobsError } from "../../errors.js";
import { mapLimited } from "../../platform/map-limited.js";
import type { ChangeReachability, ServicePath } from "../../routeros/simulator/reachability/index.js";
import { diffExports, type MenuDiff } from "./export-diff.js";
import type { ConfigRead } from "./live-config.js";
import type { StackJob } from "./stack-jobs.js";
import { runOnTwin, type ScriptFailure, TwinLoadError } from "./twin.js";

export interface PlanOptions {
  readonly jobs: readonly StackJob[];
  /**
   * Job keys Terraform has applied already (from its state); such a job would not run again. Ignored with
   * `all`. @default - none: every declared job would run (a stack never applied)
   */
  readonly appliedKeys?: ReadonlySet<string>;
  /** Drift: run every declared job, applied or not. @default false */
  readonly all?: boolean;
  /**
   * The one configuration read per router (`/export` through the service), or a configuration with where it
   * came from (`--from-backup`: the service's newest backup), which the plan then names.
   */
  readonly readConfig: (routerId: string) => Promise<string | ConfigRead>;
  /** Routers read at the same time; the client's rate budget still applies. @default 4 */
  readonly concurrency?: number;
  /**
   * How the service reaches each router, checked on the twin after the jobs (docs/safe-change.md).
   * @default - no reachability check
   */
  readonly reach?: (routerId: string) => ServicePath | undefined;
}

export interface RouterPlan {
  readonly router_id: string;
  /** The resources (construct paths) of the jobs that would run, in order. */
  readonly jobs: readonly string[];
  readonly diff: readonly MenuDiff[];
  readonly failures: readonly ScriptFailure[];
  readonly skipped: readonly string[];
  /** Why this router could not be planned (read refused, twin cannot load it); then nothing else is known. */
  readonly error?: string;
  /** Whether the service would still reach the router after the jobs; absent when not checked. */
  readonly reachability?: ChangeReachability;
  /** Where the configuration planned on came from, when not the live one (`--from-backup`). */
  readonly configFrom?: string;
}

export interface Plan {
  readonly routers: readonly RouterPlan[];
  /** Routers whose configuration would change. */
  readonly changed: number;
  /** Routers with a failing script or an error. */
  readonly failed: number;
  /** Routers the jobs would cut the service off from. */
  readonly cutOff: number;
}

/** Jobs that would run, grouped by router in first-declared order, each router's jobs in Terraform order. */
export function jobsByRouter(
  options: Pick<PlanOptions, "jobs" | "appliedKeys" | "all">,
): Map<string, StackJob[]> {
  const byRouter = new Map<string, StackJob[]>();
  for (const entry of options.jobs) {
    const routerJobs = byRouter.get(entry.job.router_id) ?? [];
    byRouter.set(entry.job.router_id, routerJobs);
    if (options.all || !options.appliedKeys?.has(entry.job.job_key)) routerJobs.push(entry);
  }
  return byRouter;
}

async function planRouter(
  routerId: string,
  jobs: readonly StackJob[],
  options: PlanOptions,
): Promise<RouterPlan> {
  const resources = jobs.map((entry) => entry.job.resource);
  const empty = { router_id: routerId, jobs: resources, diff: [], failures: [], skipped: [] };
  // A router with nothing to run cannot change: it costs no request.
  if (jobs.length === 0) return empty;
  try {
    const read = await options.readConfig(routerId);
    const live = typeof read === "string" ? read : read.text;
    const twin = await runOnTwin(
      live,
      jobs.map((entry) => ({ resource: entry.job.resource, script: entry.job.script })),
      options.reach?.(routerId),
    );
    return {
      ...empty,
      diff: diffExports(twin.before, twin.after),
      failures: twin.failures,
      skipped: twin.skipped,
      ...(twin.reachability ? { reachability: twin.reachability } : {}),
      ...(typeof read === "string" ? {} : { configFrom: read.source }),
    };
  } catch (error) {
    if (!(error instanceof RouterjobsError || error instanceof TwinLoadError)) throw error;
    return { ...empty, error: error.message };
  }
}

export async function planStack(options: PlanOptions): Promise<Plan> {
  const routers = await mapLimited([...jobsByRouter(options)], options.concurrency ?? 4, ([routerId, jobs]) =>
    planRouter(routerId, jobs, options),
  );
  return {
    routers,
    changed: routers.filter((router) => router.diff.length > 0).length,
    failed: routers.filter((router) => router.failures.length > 0 || router.error !== undefined).length,
    cutOff: routers.filter((router) => router.reachability?.status === "cut").length,
  };
}
