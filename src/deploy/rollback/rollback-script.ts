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
import { DESCRIPTION_MAX_CHARS } from "../../contract/limits.js";

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
