/**
 * The restore job's pieces, pure: the RouterOS script that puts a router back to the backup a job took, and
 * the description that names it in the job list. See docs/rollback.md.
 *
 * The backup a job takes is `routerjobs-job-<seq>` on the router's disk: an export (`.rsc`) on a device (and a
 * binary backup, `.backup`, beside it on a device with `binary_backup`), a binary backup on a simulated router.
 * The script checks which files exist on the router itself (`/file`), so apply does not need to know what kind
 * of router it talks to, and a missing backup fails the restore before anything is reset: a device reset
 * without its script would be left empty.
 */
import { idempotencyKey } from "../../contract/apply-job.js";
import { tagOf } from "../../contract/attempt-marker.js";
import { DESCRIPTION_MAX_CHARS } from "../../contract/limits.js";
import { quoteString } from "../../routeros/language/quote.js";

/** The backup's file name without its extension, as the service names it (docs/routers.md). */
export function backupBaseName(seqId: number): string {
  return `routerjobs-job-${seqId}`;
}

/** How long after the restore job the device's reset starts: the service reads a job's outcome every 0.5 s. */
export const RESET_DELAY = "5s";

/**
 * Which backup the restore uses, in this order (docs/rollback.md):
 *
 * - `.backup` beside `.rsc`: a device with `binary_backup` (the device back end writes the export, then the
 *   binary backup). The binary backup is the complete one (user passwords, certificates and their keys), so it
 *   wins. `backup load` reboots the device and puts back a script table without the restore job's entry, where
 *   a device reports the outcome: so it runs in the background, {@link RESET_DELAY} after the job reported.
 * - `.rsc` alone: a device's export. Reset to an empty configuration, keeping the users (the service's own
 *   login is in no export), then run the export; in the background after the same delay, for the same reason.
 * - `.backup` alone: a simulated router in the service (its back end writes no export). Loaded at once, inside
 *   the job: the service takes a simulated router's outcome from the script's return, not from an entry, and
 *   saves the router's state with that outcome, so a load after the job would be a change it never saves.
 *
 * Each of them reboots the router.
 */
export function restoreScript(seqId: number): string {
  const base = backupBaseName(seqId);
  // In the background, after the job has reported: these remove the job's script entry, where a device
  // reports the outcome, and reboot the device (docs/rollback.md).
  const later = (command: string) => `:execute {:delay ${RESET_DELAY}; ${command}}`;
  const load = `/system backup load name="${base}.backup"`;
  return [
    `:if ([:len [/file find name="${base}.backup"]] > 0) do={`,
    `  :if ([:len [/file find name="${base}.rsc"]] > 0) do={`,
    `    ${later(load)}`,
    "  } else={",
    `    ${load}`,
    "  }",
    "} else={",
    `  :if ([:len [/file find name="${base}.rsc"]] > 0) do={`,
    `    ${later(`/system reset-configuration no-defaults=yes skip-backup=yes keep-users=yes run-after-reset="${base}.rsc"`)}`,
    "  } else={",
    `    :error "no backup ${base} on the router (neither ${base}.rsc nor ${base}.backup): nothing to restore from"`,
    "  }",
    "}",
  ].join("\n");
}

/**
 * `[rj-restore:<resource tag>-<seq>]`: unlike an attempt's `[rj:...]` marker (attempt-marker.ts) it never
 * parses as an attempt, so the exactly-once lookup does not count a restore as a run of the declared change;
 * and it names the backup, so a second apply finds the restore already made instead of submitting another.
 */
const RESTORE_MARKER = /\s\[rj-restore:([a-z2-7]{4})-([1-9][0-9]{0,15})\]$/;

export function restoreMarker(resourceTag: string, seqId: number): string {
  return `rj-restore:${resourceTag}-${seqId}`;
}

export function restoreDescription(resourceTag: string, seqId: number): string {
  const text = `routerjobs rollback: restore the backup of job #${seqId} [${restoreMarker(resourceTag, seqId)}]`;
  // Resource tags are 4 characters and seq ids at most 16 digits: always within the spec's limit.
  if ([...text].length > DESCRIPTION_MAX_CHARS) throw new Error("restore description too long");
  return text;
}

/** The restore a listed job's description names, or undefined for any other job. */
export function parseRestoreMarker(
  description: string,
): { readonly resourceTag: string; readonly seqId: number } | undefined {
  const match = RESTORE_MARKER.exec(description);
  return match ? { resourceTag: match[1] ?? "", seqId: Number(match[2]) } : undefined;
}

/** The same `Idempotency-Key` for every submission of one restore. */
export function restoreIdempotencyKey(routerId: string, resourceTag: string, seqId: number): string {
  return idempotencyKey(`restore:${routerId}:${resourceTag}`, String(seqId));
}

/**
 * The service's backup a job's `associated_backup` names: the part after the last `/` (`<site>/<epoch>.rsc` at
 * the public service, the bare name at ours); undefined when the job names none.
 */
export function serviceBackupFile(associatedBackup: unknown): string | undefined {
  if (typeof associatedBackup !== "string") return undefined;
  const name = associatedBackup.slice(associatedBackup.lastIndexOf("/") + 1);
  return name === "" ? undefined : name;
}

/**
 * A service's backup as the restore names it: `f` and two tags of its file name, so that it never parses as a
 * job's seq (`parseRestoreMarker`) and two backups of one router are told apart.
 */
function serviceBackupTag(filename: string): string {
  return `f${tagOf(filename)}${tagOf(`:${filename}`)}`;
}

/** The file the restore writes the service's backup to on the router: its name, made safe for a path. */
export function serviceBackupPathOnRouter(filename: string): string {
  const base = filename
    .replace(/\.rsc$/, "")
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .slice(0, 64);
  return `routerjobs-restore-${base}.rsc`;
}

/**
 * The restore of an export the service kept (the sites API's backup): the script writes it to a file on the
 * router and resets the configuration to it, as the router's own export is restored (`restoreScript`). On a
 * device the reset starts in the background after the job reported, since the reset removes the job's script
 * entry and reboots: a device is told by our device back end's running entry (its comment) or by a script job
 * (a wrapper run under `/system script job`, as the public service's is assumed to be). Where the service runs
 * the script itself (a simulated router: neither), inside the job, so that the service saves the restored
 * state with the outcome.
 */
/** The comment our device back end gives a job's script entry while it runs (service/routers/job-entry.ts). */
const DEVICE_JOB_RUNNING = "routerjobs:running";

export function serviceRestoreScript(filename: string, content: string): string {
  const file = quoteString(serviceBackupPathOnRouter(filename));
  const reset = `/system reset-configuration no-defaults=yes skip-backup=yes keep-users=yes run-after-reset=${file}`;
  return [
    `/file add name=${file} contents=${quoteString(content)}`,
    `:if (([:len [/system script job find]] + [:len [/system script find where comment~"^${DEVICE_JOB_RUNNING}"]]) > 0) do={`,
    `  :execute {:delay ${RESET_DELAY}; ${reset}}`,
    "} else={",
    `  ${reset}`,
    "}",
  ].join("\n");
}

export function serviceRestoreMarker(resourceTag: string, filename: string): string {
  return `rj-restore:${resourceTag}-${serviceBackupTag(filename)}`;
}

export function serviceRestoreDescription(resourceTag: string, filename: string): string {
  const marker = ` [${serviceRestoreMarker(resourceTag, filename)}]`;
  const room =
    DESCRIPTION_MAX_CHARS - [...marker].length - "routerjobs rollback: restore the service's backup ".length;
  const name = [...filename].length <= room ? filename : `${[...filename].slice(0, room - 1).join("")}…`;
  return `routerjobs rollback: restore the service's backup ${name}${marker}`;
}

export function serviceRestoreIdempotencyKey(
  routerId: string,
  resourceTag: string,
  filename: string,
): string {
  return idempotencyKey(`restore:${routerId}:${resourceTag}`, `service:${filename}`);
}
