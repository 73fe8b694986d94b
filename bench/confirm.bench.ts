/**
 * Issue 6: how soon `routerjobs apply` exits after its job reached a terminal state, confirming through the
 * receiver (a long poll woken by the notification) against polling the job list at its best interval. Each
 * run is a real `routerjobs apply` process against the service and the receiver on loopback; the latency is
 * from the job's `completed_at` (the service's clock, this machine) to the process's exit.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ApplyJob, jobKey } from "../src/contract/apply-job.js";
import { stripMarker } from "../src/contract/attempt-marker.js";
import { startLocalStack } from "../src/demo/local-stack.js";
import { type BenchReport, percentile, round } from "./harness.js";

const RUNS = Number(process.env.CONFIRM_RUNS ?? 10);

export async function run(): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), "rj-bench-confirm-"));
  const routerId = randomUUID();
  const stack = await startLocalStack({
    dir,
    routers: [{ id: routerId, name: "r1" }],
    tickMs: 200,
    rateLimit: { count: 6000, windowMs: 60_000 },
  });
  const latencies: Record<"receiver" | "poll", number[]> = { receiver: [], poll: [] };
  try {
    for (let index = 0; index < RUNS; index++) {
      // Alternating, so that both modes see the same machine load.
      for (const mode of ["receiver", "poll"] as const) {
        const definition = {
          phase: "create" as const,
          router_id: routerId,
          description: `confirm ${mode} ${index}`,
          script: `/system identity set name=${mode}-${index}`,
          make_backup: false,
          express_execute: true,
          needs_acknowledgement: true,
        };
        const job: ApplyJob = {
          version: 1,
          resource: `bench/${mode}`,
          wait_for: mode,
          timeout_ms: 60_000,
          ...definition,
          job_key: jobKey(definition),
        };
        const exitedAt = await applyOnce(job, stack.env);
        // apply submits the description with its attempt's marker at the end (contract/attempt-marker.ts).
        const { rows } = await stack.service.app.db.query<{ description: string; completed_at: Date | null }>(
          "SELECT description, completed_at FROM jobs WHERE router_id = $1",
          [routerId],
        );
        const completedAt = rows.find(
          (row) => stripMarker(row.description) === definition.description,
        )?.completed_at;
        if (!completedAt) throw new Error(`the ${mode} job ${index} did not complete`);
        latencies[mode].push(exitedAt - new Date(completedAt).getTime());
      }
    }
  } finally {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  }
  const summary = (values: number[]) => ({
    mean: values.reduce((a, b) => a + b, 0) / values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
  });
  const receiver = summary(latencies.receiver);
  const poll = summary(latencies.poll);
  const line = (name: string, s: typeof receiver) =>
    `${name.padEnd(8)} terminal -> apply exited: mean ${round(s.mean)} ms, p50 ${round(s.p50)} ms, p95 ${round(s.p95)} ms`;
  return {
    title: "confirmation latency of routerjobs apply",
    metrics: {
      receiverMeanMs: round(receiver.mean),
      receiverP95Ms: round(receiver.p95),
      pollMeanMs: round(poll.mean),
      pollP95Ms: round(poll.p95),
      pollOverReceiver: round(poll.mean / receiver.mean),
    },
    lines: [
      `${RUNS} express jobs per mode, each a real 'routerjobs apply' process`,
      line("receiver", receiver),
      line("poll", poll),
      `polling (first look 500 ms after submission, then x1.6) takes ${round(poll.mean / receiver.mean, 1)}x as long to confirm as the receiver`,
    ],
  };
}

/** Runs one apply to its end and returns the wall-clock time it exited (epoch ms). */
async function applyOnce(job: ApplyJob, env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "..", "bin", "routerjobs.js"), "apply"], {
    env: { ...env, ROUTERJOBS_JOB: JSON.stringify(job), ROUTERJOBS_INSTANCE_ID: randomUUID() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const exitedAt = Date.now();
  if (code !== 0) throw new Error(`routerjobs apply exited ${code}:\n${output}`);
  return exitedAt;
}
