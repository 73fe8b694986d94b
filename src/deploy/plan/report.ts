/**
 * The plan for people (text, per router, grouped by menu, `+` added, `-` removed, `~` changed) and for CI
 * (JSON, the same facts with stable field names).
 */
import { namedRouter } from "../../contract/router-list.js";
import { withLine } from "../../routeros/errors.js";
import type { MenuDiff } from "./export-diff.js";
import type { Plan, RouterPlan } from "./plan.js";

/** A router's change, menu by menu, as the plan prints it (indented by `indent`). */
export function diffLines(diff: readonly MenuDiff[], indent = "  "): string[] {
  const lines: string[] = [];
  for (const menu of diff) {
    lines.push(`${indent}${menu.menu || "(no menu)"}${menu.reordered ? " (lines reordered)" : ""}`);
    for (const line of menu.removed) lines.push(`${indent}  - ${line}`);
    for (const line of menu.added) lines.push(`${indent}  + ${line}`);
    for (const { before, after } of menu.changed)
      lines.push(`${indent}  ~ ${before}`, `${indent}    ${after}`);
  }
  if (diff.length === 0) lines.push(`${indent}${NO_CHANGE}`);
  return lines;
}

export const NO_CHANGE = "no change to the configuration";

function routerLines(router: RouterPlan, names: ReadonlyMap<string, string>): string[] {
  const head = `router ${router.router_id}`;
  if (router.error !== undefined) return [`${head}: error: ${router.error}`];
  if (router.jobs.length === 0) return [`${head}: no job would run`];
  const lines = [`${head}: ${router.jobs.length} job(s) would run: ${router.jobs.join(", ")}`];
  if (router.configFrom !== undefined) lines.push(`  planned on ${router.configFrom}`);
  lines.push(...diffLines(router.diff));
  for (const failure of router.failures) {
    lines.push(`  ! ${failure.resource} would fail: ${withLine(failure.error, failure.line)}`);
  }
  for (const resource of router.skipped)
    lines.push(`  ! ${resource} would not start (a job before it failed)`);
  lines.push(...reachabilityLines(router, names));
  return lines;
}

function reachabilityLines(router: RouterPlan, names: ReadonlyMap<string, string>): string[] {
  const named = namedRouter(router.router_id, names);
  const reach = router.reachability;
  if (!reach) return [];
  if (reach.status === "cut")
    return [
      `  ! this change would cut the service off from ${named}: ${reach.reason}`,
      `    (path: ${reach.path})`,
    ];
  if (reach.status === "unknown") return [`  ? reachability not checked: ${reach.reason}`];
  const undecided = reach.undecided.length === 0 ? "" : `; ${reach.undecided.length} rule(s) undecided`;
  return [`  the service still reaches it: ${reach.path}${undecided}`];
}

/** `names`: router names by id, where the service lists them (a cut-off names the router so). */
export function planText(plan: Plan, names: ReadonlyMap<string, string> = new Map()): string[] {
  const lines = plan.routers.flatMap((router) => routerLines(router, names));
  lines.push(
    `Plan: ${plan.changed} of ${plan.routers.length} router(s) would change; ${plan.failed} with a failing script or an error${plan.cutOff > 0 ? `; ${plan.cutOff} would cut the service off` : ""}.`,
  );
  return lines;
}

export function planJson(plan: Plan): unknown {
  return {
    format_version: 1,
    changed: plan.changed,
    failed: plan.failed,
    cut_off: plan.cutOff,
    routers: plan.routers.map((router) => ({
      router_id: router.router_id,
      jobs: router.jobs,
      changes: router.diff,
      failures: router.failures,
      skipped: router.skipped,
      error: router.error ?? null,
      reachability: router.reachability ?? null,
      config_from: router.configFrom ?? "the live configuration",
    })),
  };
}
