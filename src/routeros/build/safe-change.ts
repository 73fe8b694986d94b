/**
 * The scripts of a safe change (docs/safe-change.md): before the job's own script, the router saves a backup
 * and arms a scheduler task that loads it when the deadline passes; a follow-up job, once the service reaches
 * the router again, disarms it. The backup is the script's own, not the service's job backup: the service
 * names that one after the job is submitted (`routerjobs-job-<seq>`), and the public service not at all.
 */

/** Tags name the task and the backup file: letters, digits and dashes only, so they need no quoting. */
const TAG = /^[a-z0-9-]{1,40}$/;

export const SAFE_CHANGE_PREFIX = "routerjobs-safe-";
/** What the disarm job fails with when the revert is no longer armed: it fired (or was removed by hand). */
export const REVERTED_MARKER = "routerjobs-safe: reverted";
export const CONFIRMED_MARKER = "routerjobs-safe: confirmed";

function nameOf(tag: string): string {
  if (!TAG.test(tag))
    throw new Error(`safe-change tag must be 1 to 40 of a-z, 0-9 and - (got ${JSON.stringify(tag)})`);
  return `${SAFE_CHANGE_PREFIX}${tag}`;
}

/** RouterOS's interval for a deadline: whole seconds. */
function interval(deadlineMs: number): string {
  return `${Math.max(1, Math.ceil(deadlineMs / 1000))}s`;
}

/**
 * Lines that go before the job's script. The task starts now and repeats every `deadlineMs`, so its first run
 * is at the deadline and it needs no date arithmetic; it is configuration, so it outlives the script and a
 * reboot. The backup was saved before the task was added, so loading it removes the task too.
 */
export function armRevertScript(tag: string, deadlineMs: number): string {
  const name = nameOf(tag);
  return [
    `/system scheduler remove [find name=${name}]`,
    `/system backup save name=${name} dont-encrypt=yes`,
    `/system scheduler add name=${name} start-date=[/system clock get date] start-time=[/system clock get time] interval=${interval(deadlineMs)} on-event="/system backup load name=${name}.backup"`,
  ].join("\n");
}

/**
 * The follow-up job: a read the service can only run if it reaches the router, then the disarm. When the
 * revert fired, the backup it loaded is still on the disk (files outlive a backup load): it is removed before
 * the job fails, so a reverted change leaves no file behind either.
 */
export function disarmRevertScript(tag: string): string {
  const name = nameOf(tag);
  return [
    `:put [/system identity get name]`,
    `:if ([:len [/system scheduler find name=${name}]] = 0) do={ /file remove [find name=${name}.backup]; :error "${REVERTED_MARKER}: ${name} is no longer armed" }`,
    `/system scheduler remove [find name=${name}]`,
    `/file remove [find name=${name}.backup]`,
    `:put "${CONFIRMED_MARKER}"`,
  ].join("\n");
}
