import type { RouterJobsClient } from "../../client/client.js";

/** How far the router's clock may be from the service's and still place a log line in the job's run. */
const CLOCK_MARGIN_MS = 2 * 60_000;
const SHOWN = 3;

/**
 * Why a job failed. The project's service sends `error` on the job; the public service is not known to, so
 * the fallback reads the router's script errors through the synchronous endpoint (RouterOS logs a failed
 * script with topics `script,error`). Lines logged before the job started belong to earlier jobs, so they
 * are left out when the router's clock allows telling; else the latest lines are shown, and said to be so.
 * Best effort: the failure itself is already certain.
 */
export async function failureReason(
  client: RouterJobsClient,
  routerId: string,
  job: { readonly started_at?: string | null | undefined; readonly error?: string | null | undefined },
  deadline: number,
): Promise<string> {
  if (job.error) return job.error;
  try {
    const records = await client.execute(routerId, "/log/print", "?topics=script,error", {
      deadlineMs: Math.max(1, Math.min(15_000, deadline - Date.now())),
    });
    if (records.length === 0) return "the service gave no reason and the router logged no script error";
    const since = job.started_at ? Date.parse(job.started_at) - CLOCK_MARGIN_MS : Number.NaN;
    const during = records.filter((record) => (routerTime(record.time) ?? Number.NaN) >= since);
    const shown = (during.length > 0 ? during : records)
      .slice(-SHOWN)
      .map((record) => `${record.time ?? ""} ${record.message ?? ""}`.trim())
      .join(" | ");
    return during.length > 0
      ? `the service gave no reason; the router logged during the job: ${shown}`
      : `the service gave no reason; the router's latest script errors (its clock does not place them in this job's run): ${shown}`;
  } catch (cause) {
    return `the service gave no reason, and the router's log could not be read (${(cause as Error).message})`;
  }
}

/**
 * A log line's time as RouterOS >= 7.10 prints it (`2026-11-23 10:15:02`), read as UTC. Older formats
 * (`nov/23 10:15:02`, `10:15:02`) lack the year or the day, so they place nothing.
 */
function routerTime(text: unknown): number | undefined {
  const match = typeof text === "string" ? /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/.exec(text) : null;
  const at = match ? Date.parse(`${match[1]}T${match[2]}Z`) : Number.NaN;
  return Number.isNaN(at) ? undefined : at;
}
