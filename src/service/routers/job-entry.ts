/**
 * What the device back end leaves on a router to find a job again: the job's `/system/script` entry, whose
 * comment records how far the job got, and a boot marker that tells one boot of the router from the next.
 *
 * Comments: `routerjobs:loaded` -> `routerjobs:started:<boot>` (set by the service, just before `/execute`) ->
 * `routerjobs:running:<boot>` (the wrapper's first act) -> `routerjobs:completed` |
 * `routerjobs:failed:<the router's error text>`. `<boot>` is the boot marker the job was started under.
 *
 * A reboot stops every script of a RouterOS router and none resumes, so an entry still `started` or `running`
 * under an earlier boot will never finish: its effect is unknown, and the backup taken before it is the way back.
 */

const PREFIX = "routerjobs:";

export type JobEntryState =
  | { readonly state: "loaded" }
  /** `boot` is absent in entries written before the marker existed: those are only waited for. */
  | { readonly state: "started" | "running"; readonly boot?: string }
  | { readonly state: "completed" }
  | { readonly state: "failed"; readonly error: string }
  /** Not ours (an operator's comment, or an entry of the same name made by hand). */
  | { readonly state: "unknown" };

export const RESTARTED_DURING_JOB =
  "the router restarted while the job ran; its effect is unknown, see the backup";

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

export function startedComment(boot: string | undefined): string {
  return boot === undefined ? `${PREFIX}started` : `${PREFIX}started:${boot}`;
}

export function parseJobComment(comment: string): JobEntryState {
  if (!comment.startsWith(PREFIX)) return { state: "unknown" };
  const rest = comment.slice(PREFIX.length);
  if (rest === "loaded" || rest === "completed") return { state: rest };
  if (rest.startsWith("failed:")) return { state: "failed", error: rest.slice("failed:".length) };
  const [state, boot] = rest.split(":", 2) as [string, string | undefined];
  if (state !== "started" && state !== "running") return { state: "unknown" };
  return boot ? { state, boot } : { state };
}

/** Whether an entry started under `boot` can still be running on a router now in `currentBoot`. */
export function mayStillRun(entry: JobEntryState, currentBoot: string | undefined): boolean {
  if (entry.state !== "started" && entry.state !== "running") return false;
  return entry.boot === undefined || currentBoot === undefined || entry.boot === currentBoot;
}

/** The wrapper `/execute` runs: marks the entry running, runs it, writes the outcome (RouterOS 7.13+). */
export function jobWrapper(entry: string, boot?: string): string {
  const set = (comment: string) => `/system script set [find name="${entry}"] comment=${comment}`;
  const running = boot === undefined ? `${PREFIX}running` : `${PREFIX}running:${boot}`;
  return [
    set(`"${running}"`),
    ":local failed false",
    `:onerror e in={ /system script run [find name="${entry}"] } do={ :set failed true; ${set(`("${PREFIX}failed:" . $e)`)} }`,
    `:if (!$failed) do={ ${set(`"${PREFIX}completed"`)} }`,
  ].join("\n");
}

/**
 * The boot marker: a `:global` that only a reboot clears. The first session after a boot sets it to `candidate`
 * (a fresh random hex string); later sessions read the value already there. Run with `/execute as-string`.
 */
export function bootMarkerScript(candidate: string): string {
  if (!/^[0-9a-f]+$/.test(candidate)) throw new Error("a boot marker candidate is lowercase hex");
  return [
    ":global routerjobsBoot",
    `:if ([:typeof $routerjobsBoot] != "str") do={ :set routerjobsBoot "${candidate}" }`,
    ":put $routerjobsBoot",
  ].join("\n");
}
