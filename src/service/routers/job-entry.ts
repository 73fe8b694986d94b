/**
 * What the device back end leaves on a router to find a job again: the job's `/system/script` entry, whose
 * comment records how far the job got, and a boot marker that tells one boot of the router from the next.
 *
 * Comments: `routerjobs:loaded` -> `routerjobs:started:<boot>:<attempt>` (set by the service, just before
 * `/execute`) -> `routerjobs:running:<boot>:<attempt>` (the wrapper's first act) -> `routerjobs:completed` |
 * `routerjobs:failed:<the router's error text>`. `<boot>` is the boot marker the job was started under;
 * `<attempt>` names the one `/execute` allowed to run the script.
 *
 * Why the attempt: a service that dies between marking the entry `started` and sending `/execute` leaves an
 * entry no wrapper will ever move on, and the instance that resumes the job cannot tell it from one whose
 * `/execute` is still on its way. So the wrapper takes the entry only from `started` under its own attempt, in
 * one command (`set [find where ... comment=...]`, which RouterOS runs whole), and runs the script only if that
 * took. The resuming instance takes an entry it finds `started` over the same way, under an attempt of its own,
 * and starts it: a late `/execute` of the dead instance then finds the entry no longer its own and does nothing.
 * The script runs once either way.
 *
 * A reboot stops every script of a RouterOS router and none resumes, so an entry still `started` or `running`
 * under an earlier boot will never finish: its effect is unknown, and the backup taken before it is the way back.
 */

const PREFIX = "routerjobs:";

/** The states whose comment names the boot marker and the attempt. */
export type AttemptState = "started" | "running";

export type JobEntryState =
  | { readonly state: "loaded" }
  /** `boot` is absent in entries written before the marker existed: those are only waited for. */
  | { readonly state: AttemptState; readonly boot?: string; readonly attempt?: string }
  | { readonly state: "completed" }
  | { readonly state: "failed"; readonly error: string }
  /** Not ours (an operator's comment, or an entry of the same name made by hand). */
  | { readonly state: "unknown" };

export { RESTARTED_DURING_JOB } from "../../contract/routers/router-backend.js";

/**
 * The entry was there and is gone before the job ended: something on the router removed it (a script that
 * resets the configuration or loads a backup puts back a script table without it). Running it again could
 * do that again after every boot, so the job fails instead.
 */
export const ENTRY_REMOVED_DURING_JOB =
  "the job's script entry was removed from the router while the job ran (a configuration reset or backup load in the script removes it); its effect is unknown, see the backup";

export const RESUMED_WITHOUT_ENTRY =
  "the service restarted while the job ran and the router has no entry of it; its effect is unknown, see the backup";

export function loadedComment(): string {
  return `${PREFIX}loaded`;
}

/**
 * `state` under `boot` (empty when the router would not keep a marker) for the `/execute` named `attempt`. One
 * format for both states, as `parseJobComment` reads both with one rule.
 */
export function attemptComment(state: AttemptState, boot: string | undefined, attempt: string): string {
  return `${PREFIX}${state}:${boot === undefined ? "" : hex(boot, "a boot marker")}:${hex(attempt, "an attempt")}`;
}

/** `started`: set by the service just before `/execute`, the state a wrapper takes its entry from. */
export function startedComment(boot: string | undefined, attempt: string): string {
  return attemptComment("started", boot, attempt);
}

export function parseJobComment(comment: string): JobEntryState {
  if (!comment.startsWith(PREFIX)) return { state: "unknown" };
  const rest = comment.slice(PREFIX.length);
  if (rest === "loaded" || rest === "completed") return { state: rest };
  if (rest.startsWith("failed:")) return { state: "failed", error: rest.slice("failed:".length) };
  // Entries written before the attempt existed hold `started:<boot>` or `started` alone.
  const [state, boot, attempt] = rest.split(":", 3) as [string, string | undefined, string | undefined];
  if (state !== "started" && state !== "running") return { state: "unknown" };
  return { state, ...(boot ? { boot } : {}), ...(attempt ? { attempt } : {}) };
}

/** Whether an entry started under `boot` can still be running on a router now in `currentBoot`. */
export function mayStillRun(entry: JobEntryState, currentBoot: string | undefined): boolean {
  if (entry.state !== "started" && entry.state !== "running") return false;
  return entry.boot === undefined || currentBoot === undefined || entry.boot === currentBoot;
}

/** One command that moves the entry from comment `from` to `to`, and does nothing when it holds another. */
function compareAndSet(entry: string, from: string, to: string): string {
  return `/system script set [find where name="${entry}" and comment="${from}"] comment="${to}"`;
}

/**
 * The wrapper `/execute` runs (RouterOS 7.13+): takes the entry from `started` under its attempt to `running`,
 * and only if that took runs it and writes the outcome. An entry taken over by another attempt is left alone.
 */
export function jobWrapper(entry: string, boot: string | undefined, attempt: string): string {
  const set = (comment: string) => `/system script set [find name="${entry}"] comment=${comment}`;
  const running = attemptComment("running", boot, attempt);
  return [
    compareAndSet(entry, startedComment(boot, attempt), running),
    `:if ([/system script get [find name="${entry}"] comment] = "${running}") do={`,
    "  :local failed false",
    `  :onerror e in={ /system script run [find name="${entry}"] } do={ :set failed true; ${set(`("${PREFIX}failed:" . $e)`)} }`,
    `  :if (!$failed) do={ ${set(`"${PREFIX}completed"`)} }`,
    "}",
  ].join("\n");
}

/**
 * Takes an entry found `started` under `boot` and `from` (an attempt of a dead instance, whose `/execute` may
 * never come) over for the attempt `to`, in one command: run with `/execute as-string`, then read the entry
 * back. Still `started` under `to`: it is ours to start. Anything else: the old attempt's wrapper took it first.
 */
export function takeOverScript(entry: string, boot: string | undefined, from: string, to: string): string {
  return compareAndSet(entry, startedComment(boot, from), startedComment(boot, to));
}

const hex = (value: string, what: string) => {
  if (!/^[0-9a-f]+$/.test(value)) throw new Error(`${what} is lowercase hex`);
  return value;
};

/**
 * The boot marker: a `:global` that only a reboot clears. The first session after a boot sets it to `candidate`
 * (a fresh random hex string); later sessions read the value already there. Run with `/execute as-string`.
 */
export function bootMarkerScript(candidate: string): string {
  hex(candidate, "a boot marker candidate");
  return [
    ":global routerjobsBoot",
    `:if ([:typeof $routerjobsBoot] != "str") do={ :set routerjobsBoot "${candidate}" }`,
    ":put $routerjobsBoot",
  ].join("\n");
}
