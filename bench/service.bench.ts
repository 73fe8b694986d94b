/**
 * The service's overhead: throughput and p50/p99 latency of the three endpoints at 10, 100 and 1,000 routers,
 * against a bare Fastify route answering the same client in the same run; and jobs completed per second end to
 * end (submit -> `completed` notification received), against the simulated routers running the same scripts
 * directly. PGlite always, PostgreSQL when one is available (see test/helpers/postgres.ts).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { Pool } from "undici";
import { SimulatedBackend } from "../src/routeros/simulator/index.js";
import { resolveConfig } from "../src/service/config.js";
import { type RunningService, startService } from "../src/service/server.js";
import { HttpsSink } from "../test/helpers/https-sink.js";
import { postgresAvailability, startPostgres } from "../test/helpers/postgres.js";
import { type BenchReport, percentile, round } from "./harness.js";

const TEAM = "a0000000-0000-4000-8000-000000000001";
const TOKEN = `aa000000-0000-4000-8000-000000000001:${TEAM}:${"A1b2C3d4E5".repeat(6)}xy`;
const CONCURRENCY = 8;
const REQUESTS = 300;

const routerId = (index: number) => `b0000000-0000-4000-8000-${String(index).padStart(12, "0")}`;

interface Timing {
  readonly perSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** `count` requests with `CONCURRENCY` in flight; every answer must have the expected status. */
async function measure(
  pool: Pool,
  count: number,
  make: (index: number) => { method: "GET" | "POST"; path: string; body?: string },
  expected: number,
): Promise<Timing> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const spec = make(next++);
        const at = performance.now();
        const response = await pool.request({
          method: spec.method,
          path: spec.path,
          headers: {
            authorization: `Bearer ${TOKEN}`,
            ...(spec.body ? { "content-type": "application/json" } : {}),
          },
          ...(spec.body ? { body: spec.body } : {}),
        });
        await response.body.dump();
        if (response.statusCode !== expected) throw new Error(`${spec.path}: HTTP ${response.statusCode}`);
        latencies.push(performance.now() - at);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    perSec: round(count / seconds, 0),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
  };
}

async function startBench(database: string, routers: number, notifyCa?: string): Promise<RunningService> {
  return startService({
    config: resolveConfig({
      database,
      tickMs: 60_000,
      rateLimit: { count: 1_000_000_000, windowMs: 1000 },
      ...(notifyCa ? { notifyCa, notifyRetryBaseMs: 50, notifyAllow: ["127.0.0.0/8"] } : {}),
    }),
    backend: new SimulatedBackend(),
    host: "127.0.0.1",
    port: 0,
    logger: false,
    seed: {
      teams: [
        {
          id: TEAM,
          tokens: [TOKEN],
          routers: Array.from({ length: routers }, (_, index) => ({
            id: routerId(index),
            name: `r${index}`,
          })),
        },
      ],
    },
  });
}

async function bareBaseline(): Promise<{ timing: Timing; close: () => Promise<void> }> {
  const app = Fastify();
  app.post("/bare/:id", async (request) => ({ status: "success", data: request.body }));
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const pool = new Pool(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`, {
    connections: CONCURRENCY,
  });
  const timing = await measure(
    pool,
    REQUESTS,
    (index) => ({ method: "POST", path: `/bare/${index}`, body: '{"command":"/system/identity/print"}' }),
    200,
  );
  return {
    timing,
    close: async () => {
      await pool.close();
      await app.close();
    },
  };
}

async function endpoints(
  database: string,
  routers: number,
  bare: Timing,
  lines: string[],
  metrics: BenchReport["metrics"],
  label: string,
) {
  const service = await startBench(database, routers);
  const pool = new Pool(service.url, { connections: CONCURRENCY });
  try {
    const pick = (index: number) => routerId((index * 7919) % routers);
    const job = (index: number) =>
      JSON.stringify({ description: `bench ${index}`, script: "/system identity set name=bench" });
    const results: [string, Timing][] = [
      [
        "sync",
        await measure(
          pool,
          REQUESTS,
          (index) => ({
            method: "POST",
            path: `/api/synchronous/${pick(index)}`,
            body: '{"command":"/system/identity/print"}',
          }),
          200,
        ),
      ],
      [
        "async",
        await measure(
          pool,
          REQUESTS,
          (index) => ({ method: "POST", path: `/api/asynchronous/${pick(index)}`, body: job(index) }),
          202,
        ),
      ],
      [
        "list",
        await measure(
          pool,
          REQUESTS,
          (index) => ({ method: "GET", path: `/api/routers/${pick(index)}/jobs` }),
          200,
        ),
      ],
    ];
    for (const [name, timing] of results) {
      const key = `${label}.${routers}.${name}`;
      metrics[`${key}.perSec`] = timing.perSec;
      metrics[`${key}.p50Ms`] = timing.p50Ms;
      metrics[`${key}.p99Ms`] = timing.p99Ms;
      metrics[`${key}.p50Ratio`] = round(timing.p50Ms / bare.p50Ms);
      lines.push(
        `${label} ${String(routers).padStart(4)} routers ${name.padEnd(5)} ${String(timing.perSec).padStart(5)}/s  p50 ${timing.p50Ms} ms  p99 ${timing.p99Ms} ms  (p50 x${round(timing.p50Ms / bare.p50Ms)} of bare Fastify, throughput ${round(timing.perSec / bare.perSec)})`,
      );
    }
  } finally {
    await pool.close();
    await service.close();
  }
}

/** Jobs per second from submission to the `completed` notification, across 10 routers. */
async function endToEnd(database: string, jobs: number): Promise<number> {
  const sink = await HttpsSink.start();
  const service = await startBench(database, 10, sink.ca);
  const pool = new Pool(service.url, { connections: CONCURRENCY });
  try {
    const started = performance.now();
    await measure(
      pool,
      jobs,
      (index) => ({
        method: "POST",
        path: `/api/asynchronous/${routerId(index % 10)}`,
        body: JSON.stringify({
          description: `e2e ${index}`,
          script: `/ip address add address=10.${index % 250}.${Math.floor(index / 250)}.1/24 interface=ether1`,
          express_execute: true,
          notify_url: `${sink.url}/hook/${randomUUID()}`,
        }),
      }),
      202,
    );
    await sink.waitFor(
      (received) => received.filter((item) => item.body.status === "completed").length >= jobs,
      60_000,
    );
    return round(jobs / ((performance.now() - started) / 1000), 1);
  } finally {
    await pool.close();
    await service.close();
    await sink.close();
  }
}

/** The baseline of the end-to-end figure: the same scripts on the simulated routers, no service around them. */
async function directScripts(jobs: number): Promise<number> {
  const backend = new SimulatedBackend();
  for (let index = 0; index < 10; index++) await backend.attach(routerId(index), { name: `r${index}` });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, async (_, router) => {
      for (let index = router; index < jobs; index += 10) {
        await backend.runScript(
          routerId(router),
          `/ip address add address=10.${index % 250}.${Math.floor(index / 250)}.1/24 interface=ether1`,
        );
        backend.snapshot(routerId(router));
      }
    }),
  );
  return round(jobs / ((performance.now() - started) / 1000), 1);
}

/**
 * PGlite on disk, as `routerjobs service --data` runs it (memory:// would flatter every figure), in a fresh
 * data directory per service so that no run inherits another's rows.
 */
async function onDisk<T>(use: (dataDir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "rj-bench-pglite-"));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchReport> {
  const lines: string[] = [];
  const metrics: BenchReport["metrics"] = {};
  const bare = await bareBaseline();
  await bare.close();
  metrics["bare.perSec"] = bare.timing.perSec;
  metrics["bare.p50Ms"] = bare.timing.p50Ms;
  lines.push(
    `bare Fastify POST: ${bare.timing.perSec}/s  p50 ${bare.timing.p50Ms} ms  p99 ${bare.timing.p99Ms} ms`,
  );
  for (const routers of [10, 100, 1000])
    await onDisk((dir) => endpoints(dir, routers, bare.timing, lines, metrics, "pglite"));

  const jobs = 200;
  const direct = await directScripts(jobs);
  const pglite = await onDisk((dir) => endToEnd(dir, jobs));
  metrics["e2e.directJobsPerSec"] = direct;
  metrics["e2e.pglite.jobsPerSec"] = pglite;
  lines.push(
    `end to end (10 routers, ${jobs} jobs): PGlite ${pglite} jobs/s; simulated routers alone ${direct} scripts/s`,
  );

  let postgresNote = "PostgreSQL: skipped (none available)";
  if (postgresAvailability().available) {
    const postgres = await startPostgres();
    try {
      await endpoints(postgres.url, 100, bare.timing, lines, metrics, "postgres");
      const figure = await endToEnd(postgres.url, jobs);
      metrics["e2e.postgres.jobsPerSec"] = figure;
      postgresNote = `end to end on PostgreSQL: ${figure} jobs/s`;
    } finally {
      await postgres.stop();
    }
  }
  lines.push(postgresNote);
  return { title: "router job execution service", metrics, lines };
}
