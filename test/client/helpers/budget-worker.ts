/**
 * A child process for the cross-process budget test and bench: job-list reads as fast as the shared budget
 * allows, for RJ_DURATION_MS (the bench) or until RJ_REQUESTS have been answered (the test, which must not
 * depend on how much a loaded machine gets done in a given time); prints
 * `{"ok":N,"rateLimited":N,"failed":N,"failures":[..]}` on stdout.
 * It first prints `ready` and waits for a line (or end) on stdin, so that a parent can start all at once.
 * Env: RJ_URL, ROUTERJOBS_TOKEN, RJ_BUDGET_DIR, RJ_RATE (`60/1s`), RJ_DURATION_MS or RJ_REQUESTS, RJ_ROUTER.
 */
import { RateLimitedError, RouterJobsClient } from "../../../src/client/index.js";
import { parseRateLimit } from "../../../src/contract/duration.js";

const env = process.env;
const client = new RouterJobsClient({
  baseUrl: env.RJ_URL ?? "",
  token: env.ROUTERJOBS_TOKEN ?? "",
  budgetDir: env.RJ_BUDGET_DIR ?? "",
  rateLimit: parseRateLimit(env.RJ_RATE ?? "60/1m"),
  retry: { maxAttempts: 1 },
});
process.stdout.write("ready\n");
await new Promise((resolve) => {
  process.stdin.once("data", resolve).once("end", resolve);
  process.stdin.resume();
});
process.stdin.pause();
const requests = env.RJ_REQUESTS === undefined ? undefined : Number(env.RJ_REQUESTS);
const until = requests === undefined ? Date.now() + Number(env.RJ_DURATION_MS ?? 1000) : undefined;
const counts = { ok: 0, rateLimited: 0, failed: 0, failures: [] as string[] };
const answered = () => counts.ok + counts.rateLimited + counts.failed;
const more = () => (requests !== undefined ? answered() < requests : Date.now() < (until ?? 0));
while (more()) {
  try {
    // The deadline bounds the wait for budget to the run; the last request gets time to finish. A counted run
    // has a deadline for a hung service only.
    const deadlineMs = until === undefined ? 120_000 : Math.max(1, until - Date.now()) + 2000;
    await client.listJobs(env.RJ_ROUTER ?? "", { deadlineMs });
    counts.ok++;
  } catch (error) {
    if (error instanceof RateLimitedError) counts.rateLimited++;
    else if ((error as { phase?: string }).phase !== "budget") {
      counts.failed++;
      counts.failures.push(String(error));
    }
  }
}
await client.close();
process.stdout.write(`${JSON.stringify(counts)}\n`);
