/**
 * `/system scheduler` on the router's clock: a task runs its `on-event` when the clock reaches its next run
 * (its start, then every `interval`; a task without interval runs once, and only if its start was still ahead
 * when it was written), and `start-time=startup` tasks run after a reboot. The router fires due tasks when it
 * is next reached (`SimulatedRouter.runScheduler`): what a script or the service then sees is what a device
 * would show, since nothing reads the router in between.
 */
import { readRouterOsTime } from "../runtime/values.js";
import type { RouterState } from "./schema.js";

export const SCHEDULER_TABLE = "system-scheduler";

const intervalMs = (values: Record<string, string>): number => readRouterOsTime(values.interval ?? "0s") ?? 0;

function startMs(values: Record<string, string>): number | undefined {
  const at = Date.parse(`${values["start-date"] ?? ""}T${values["start-time"] ?? ""}Z`);
  return Number.isNaN(at) ? undefined : at;
}

/** The first run after `afterMs`, or undefined when the task will not run again on the clock. */
export function nextRunAfter(values: Record<string, string>, afterMs: number): number | undefined {
  if (values["start-time"] === "startup") return undefined;
  const start = startMs(values);
  if (start === undefined) return undefined;
  if (start > afterMs) return start;
  const every = intervalMs(values);
  if (every <= 0) return undefined;
  return start + (Math.floor((afterMs - start) / every) + 1) * every;
}

/** Called when a task is written: its next run as the simulator keeps it (`next-run`, read-only, not exported). */
export function scheduleTask(values: Record<string, string>, router: RouterState): void {
  const next = nextRunAfter(values, router.now().getTime());
  if (next === undefined) delete values["next-run"];
  else values["next-run"] = new Date(next).toISOString().slice(0, 19).replace("T", " ");
}

const nextRunMs = (values: Record<string, string>): number | undefined => {
  const text = values["next-run"];
  return text === undefined ? undefined : Date.parse(`${text.replace(" ", "T")}Z`);
};

export interface SchedulerHost extends RouterState {
  runScript(source: string): Promise<{ readonly ok: boolean }>;
}

/**
 * Runs the tasks that are due, oldest first, each once however many runs it missed (RouterOS does not
 * catch up either); `startup` also runs the `start-time=startup` tasks. Returns how many ran.
 */
export async function runDueTasks(router: SchedulerHost, startup: boolean): Promise<number> {
  const now = router.now().getTime();
  const due = router
    .table(SCHEDULER_TABLE)
    .items.filter((item) => item.values.disabled !== "yes")
    .filter((item) =>
      item.values["start-time"] === "startup"
        ? startup
        : (nextRunMs(item.values) ?? Number.POSITIVE_INFINITY) <= now,
    )
    .map((item) => ({ id: item.id, name: item.values.name, source: item.values["on-event"] ?? "" }));
  for (const task of due) {
    const script = router.table("system-script").items.find((item) => item.values.name === task.source);
    router.log(["system", "info"], `scheduler: running ${task.name}`);
    await router.runScript(script ? (script.values.source ?? "") : task.source);
    // The task may have removed itself, or a backup load replaced the whole table: read it again.
    const after = router.table(SCHEDULER_TABLE).get(task.id);
    if (!after || after.values.name !== task.name) continue;
    after.values["run-count"] = String(Number(after.values["run-count"] ?? "0") + 1);
    const next = nextRunAfter(after.values, now);
    if (next === undefined) delete after.values["next-run"];
    else after.values["next-run"] = new Date(next).toISOString().slice(0, 19).replace("T", " ");
  }
  return due.length;
}
