/**
 * Soak (issue 8): many routers and jobs through one service with notifications on, under faults on both sides:
 * routers fail a share of their scripts at random (seeded), and every 5th connection from the service to the
 * receiver is reset. Reports jobs lost (never terminal; goal 0), terminal notifications that never reached the
 * receiver (goal 0), duplicate jobs per idempotency key (goal 0, with every 10th submission repeated),
 * confirmation latency (terminal at the service -> stored by the receiver), notification attempts, memory
 * growth, and throughput against the same scripts run on the simulated routers alone.
 *
 * The service runs in this process; the receiver runs as `routerjobs receiver` in its own (run `npm run build`
 * first; `npm run bench` does), as in production. Memory is each process's resident size, sampled through
 * the run: growth is the last quarter's mean against the first quarter's, after the databases have warmed up.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RouterJobsClient } from "../src/client/index.js";
import { ReceiverClient } from "../src/receiver/wait-client.js";
import { resolveConfig } from "../src/service/config.js";
import { SimulatedBackend } from "../src/service/routers/simulated/index.js";
import { startService } from "../src/service/server.js";
import { generateSecret } from "../src/service/store/directory.js";
import { FaultProxy } from "../test/helpers/fault-proxy.js";
import { startReceiverProcess } from "../test/helpers/receiver-process.js";
import { type BenchReport, percentile, round, rssMiB } from "./harness.js";

const ROUTERS = Number(process.env.SOAK_ROUTERS ?? 500);
const JOBS = Number(process.env.SOAK_JOBS ?? 2000);
const CONCURRENCY = 20;
/**
 * Offered load, jobs per second: a paced load shows the latency a sustainable rate gets (as fast as possible
 * only shows how the backlog grows). 0 submits as fast as the service takes them.
 */
const RATE = Number(process.env.SOAK_RATE ?? 15);
const DEADLINE_MS = 180_000;

export async function run(): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), "rj-soak-"));
  const routers = Array.from({ length: ROUTERS }, (_, index) => ({ id: randomUUID(), name: `r${index}` }));
  const teamId = randomUUID();
  const token = `${randomUUID()}:${teamId}:${generateSecret()}`;
  const receiver = await startReceiverProcess(join(dir, "receiver"));
  const receiverPort = Number(new URL(receiver.url).port);
  const proxy = await FaultProxy.start({ host: "127.0.0.1", port: receiverPort });
  proxy.set({ resetOnResponse: true, everyNth: 5 });
  const notifyUrl = receiver.notifyUrl.replace(`:${receiverPort}/`, `:${proxy.port}/`);
  const backend = new SimulatedBackend({ seed: 7, commandLatencyMs: 2, faultRate: 0.05 });
  const service = await startService({
    config: resolveConfig({
      database: join(dir, "service"),
      dataDir: join(dir, "service"),
      tickMs: 200,
      rateLimit: { count: 1_000_000, windowMs: 1000 },
      notifyRetryBaseMs: 100,
      notifyRetryMaxMs: 2000,
      notifyCa: receiver.ca,
    }),
    backend,
    host: "127.0.0.1",
    port: 0,
    tls: "generate",
    logger: false,
    seed: { teams: [{ id: teamId, customer_id: randomUUID(), tokens: [token], routers }] },
  });
  const client = new RouterJobsClient({
    baseUrl: service.url,
    token,
    ca: service.ca,
    budgetDir: join(dir, "state"),
    rateLimit: { count: 1_000_000, windowMs: 1000 },
  });
  const memory: { service: number; receiver: number }[] = [];
  const sample = async () => {
    const receiverRss = await rssMiB(receiver.process.child.pid as number);
    memory.push({ service: process.memoryUsage().rss / 2 ** 20, receiver: receiverRss ?? Number.NaN });
  };
  const sampler = setInterval(() => void sample(), 2000);
  await sample();
  try {
    const started = performance.now();
    const keys: { routerId: string; key: string }[] = [];
    let next = 0;
    let repeats = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < JOBS) {
          const index = next++;
          const due = started + (RATE > 0 ? (index * 1000) / RATE : 0);
          const early = due - performance.now();
          if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
          const routerId = (routers[index % ROUTERS] as { id: string }).id;
          const key = randomUUID();
          const request = {
            description: `soak ${index}`,
            script: `/system identity set name=soak-${index}`,
            express_execute: index % 2 === 0,
            notify_url: notifyUrl,
          };
          await client.submitJob(routerId, request, { idempotencyKey: key });
          if (index % 10 === 0) {
            await client.submitJob(routerId, request, { idempotencyKey: key });
            repeats++;
          }
          keys.push({ routerId, key });
        }
      }),
    );
    const submitted = performance.now();
    // Wait until every job is terminal at the service and its terminal notification is at the receiver.
    const db = service.app.db;
    let terminal = 0;
    while (performance.now() - started < DEADLINE_MS) {
      terminal =
        (
          await db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM jobs WHERE status IN ('completed','failed','deleted')",
          )
        ).rows[0]?.n ?? 0;
      if (terminal >= JOBS) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const reader = new ReceiverClient({
      url: receiver.url,
      readerToken: receiver.readerToken,
      ca: receiver.ca,
    });
    const latencies: number[] = [];
    let heard = 0;
    try {
      for (const { key } of keys) {
        const remaining = DEADLINE_MS - (performance.now() - started);
        const waited = await reader.waitForJob({ idempotencyKey: key, timeoutMs: Math.max(1000, remaining) });
        const job = waited.job;
        if (waited.outcome !== "terminal" || !job) continue;
        heard++;
        const end = job.completed_at ?? job.failed_at ?? job.deleted_at;
        if (end) latencies.push(Date.parse(job.last_heard_at) - Date.parse(end));
      }
    } finally {
      await reader.close();
    }
    const seconds = (performance.now() - started) / 1000;
    await sample();
    const { rows: duplicates } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM (SELECT idempotency_key FROM jobs GROUP BY idempotency_key HAVING count(*) > 1) d",
    );
    const { rows: outbox } = await db.query<{ attempts: number; n: number }>(
      "SELECT coalesce(sum(attempts),0)::int AS attempts, count(*)::int AS n FROM outbox",
    );
    const { rows: statuses } = await db.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM jobs GROUP BY status",
    );
    // Baseline: the same scripts on the simulated routers alone, no service.
    const alone = new SimulatedBackend({ seed: 7 });
    for (const router of routers.slice(0, 50)) await alone.attach(router.id, { name: router.name });
    const baseStart = performance.now();
    for (let index = 0; index < JOBS; index++)
      await alone.runScript(
        (routers[index % 50] as { id: string }).id,
        `/system identity set name=soak-${index}`,
      );
    const aloneSeconds = (performance.now() - baseStart) / 1000;
    const lost = JOBS - terminal;
    const unheard = JOBS - heard;
    const growth = (side: "service" | "receiver") => {
      const quarter = Math.max(1, Math.floor(memory.length / 4));
      const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
      const values = memory.map((entry) => entry[side]);
      // The first quarter holds the databases' start-up peak: compare the second with the last.
      return mean(values.slice(-quarter)) - mean(values.slice(quarter, 2 * quarter));
    };
    const peak = (side: "service" | "receiver") => Math.max(...memory.map((entry) => entry[side]));
    const lines = [
      `${ROUTERS} routers, ${JOBS} jobs (${repeats} submissions repeated with the same key), router fault rate 5%, every 5th service->receiver connection reset`,
      `jobs: ${statuses.map((row) => `${row.n} ${row.status}`).join(", ")}; lost ${lost} (goal 0); terminal notifications missing at the receiver ${unheard} (goal 0); duplicate jobs ${duplicates[0]?.n ?? 0} (goal 0)`,
      `notifications: ${outbox[0]?.n} sent in ${outbox[0]?.attempts} attempts; proxy broke ${proxy.stats.broken} of ${proxy.stats.connections} connections`,
      `confirmation latency (terminal -> stored by the receiver): p50 ${round(percentile(latencies, 50))} ms, p99 ${round(percentile(latencies, 99))} ms`,
      `offered ${RATE > 0 ? `${RATE} jobs/s` : "as fast as possible"}; throughput ${round(JOBS / seconds, 1)} jobs/s end to end (submitting took ${round((submitted - started) / 1000, 1)} s) vs ${round(JOBS / aloneSeconds, 1)} scripts/s on the simulated routers alone (ratio ${round(aloneSeconds / seconds, 3)})`,
      `memory (rss, ${memory.length} samples): service peak ${round(peak("service"))} MiB, growth ${round(growth("service"))} MiB (last quarter vs second); receiver peak ${round(peak("receiver"))} MiB, growth ${round(growth("receiver"))} MiB`,
    ];
    return {
      title: "soak: jobs and notifications under faults",
      metrics: {
        routers: ROUTERS,
        jobs: JOBS,
        lost,
        unheard,
        duplicates: duplicates[0]?.n ?? 0,
        p99ConfirmMs: round(percentile(latencies, 99)),
        jobsPerSec: round(JOBS / seconds, 2),
        p50ConfirmMs: round(percentile(latencies, 50)),
        serviceRssGrowthMiB: round(growth("service")),
        receiverRssGrowthMiB: round(growth("receiver")),
      },
      lines,
    };
  } finally {
    clearInterval(sampler);
    await client.close();
    await service.close();
    await proxy.close();
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}
