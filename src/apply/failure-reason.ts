import type { RouterJobsClient } from "../client/client.js";

/**
 * Why a job failed. The project's service sends `error` on the job; the public service is not known to, so
 * the fallback reads the router's script errors through the synchronous endpoint (RouterOS logs a failed
 * script with topics `script,error`). Best effort: the failure itself is already certain.
 */
export async function failureReason(
  client: RouterJobsClient,
  routerId: string,
  error: string | null | undefined,
  deadline: number,
): Promise<string> {
  if (error) return error;
  try {
    const records = await client.execute(routerId, "/log/print", "?topics=script,error", {
      deadlineMs: Math.max(1, Math.min(15_000, deadline - Date.now())),
    });
    const recent = records.slice(-3).map((record) => `${record.time ?? ""} ${record.message ?? ""}`.trim());
    return recent.length > 0
      ? `the service gave no reason; the router's latest script errors: ${recent.join(" | ")}`
      : "the service gave no reason and the router logged no script error";
  } catch (cause) {
    return `the service gave no reason, and the router's log could not be read (${(cause as Error).message})`;
  }
}
