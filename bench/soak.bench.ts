/**
 * Soak (issue 8): many routers and jobs through one service with notifications on, at a scaled rate limit, under
 * random faults on both hops. Every fault is drawn from one seeded PRNG (the seed is printed; `SOAK_SEED`
 * replays the same draws, though which request meets which draw still depends on timing):
 * - client -> service through the fault proxy: per exchange, resets after the request was sent, truncated
 *   answers and delays. A submission whose fate is unknown is sent again with its Idempotency-Key, as apply's
 *   next run does; every 10th is repeated on purpose. The service speaks plain HTTP here so that the proxy can
 *   tell a request from its answer.
 * - service -> receiver (HTTPS) through another: resets and delays per exchange, and one outage (a black hole)
 *   of `SOAK_OUTAGE_MS` once 40% of the jobs are submitted.
 * - the simulated routers fail 5% of their commands.
 * The service and the client's shared budget both allow 60 requests per 1 s (the spec's 60 per minute, its
 * window scaled down 60 times). Reports 429s (goal 0), jobs lost (never terminal; goal 0), terminal
 * notifications that never reached the receiver (goal 0), duplicate jobs per key (goal 0), confirmation
 * latency (terminal at the service -> stored by the receiver) and memory growth.
 *
 * The receiver runs as `routerjobs receiver` in its own process, the service as bench/soak-service.mjs in
 * another, both on the built code (run `npm run build` first; `npm run bench` does). Memory is each process's
 * resident size, sampled through the run (issue 20: each <= 200 MiB): growth is the last quarter's mean against
 * the second quarter's, after the databases have warmed up. Until 2026-11-29 the service ran in this process, and
 * its figure (a peak of 812 MiB) was the bench's as much as the service's.
 */
import { randomInt, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callAdmin } from "../src/cli/admin-call.js";
import { MALLOC_ENVIRONMENT, YOUNG_GENERATION_FLAGS } from "../src/cli/startup/long-running.js";
import { NetworkError, RouterJobsClient, TimeoutError } from "../src/client/index.js";
import type { JobRequestInput } from "../src/contract/job.js";
import { PACKAGE_ROOT } from "../src/demo/local-stack.js";
import { SimulatedBackend, type SimulatedBackendOptions } from "../src/routeros/simulator/index.js";
import { hash32, SeededRandom } from "../src/routeros/simulator/random.js";
import { newToken } from "../src/service/auth/directory.js";
import type { ServiceConfigInput } from "../src/service/config.js";
import { openDatabase } from "../src/service/database/database.js";
import { ReceiverClient } from "../src/service/receiver/wait-client.js";
import { startNodeScript } from "../test/helpers/cli.js";
import { type Fault, type FaultPicker, FaultProxy } from "../test/helpers/fault-proxy.js";
import { startReceiverProcess } from "../test/helpers/receiver-process.js";
import { type BenchReport, percentile, round, rssMiB } from "./harness.js";

/** A whole-number setting from the environment, or its default; anything else stops the soak with a clear error. */
function envNumber(name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = process.env[name];
  if (text === undefined) return fallback;
  if (!/^\d{1,16}$/.test(text) || Number(text) > max) {
    throw new RangeError(`${name} must be a whole number from 0 to ${max} (got "${text}")`);
  }
  return Number(text);
}

const ROUTERS = envNumber("SOAK_ROUTERS", 500);
const JOBS = envNumber("SOAK_JOBS", 2000);
const CONCURRENCY = 20;
/**
 * Offered load, jobs per second: a paced load shows the latency a sustainable rate gets (as fast as possible
 * only shows how the backlog grows). 0 submits as fast as the rate limit lets the client.
 */
const RATE = envNumber("SOAK_RATE", 15);
const OUTAGE_MS = envNumber("SOAK_OUTAGE_MS", 10_000);
const RATE_LIMIT = { count: 60, windowMs: 1000 };
const ROUTER_FAULT_RATE = 0.05;
const DEADLINE_MS = 240_000;

/** Each hop's faults: the share of exchanges each kind strikes (the rest pass untouched). */
const CLIENT_FAULTS: readonly Share[] = [
  { name: "reset after sending", share: 0.02, fault: () => ({ resetOnResponse: true }) },
  {
    name: "truncated",
    share: 0.02,
    fault: (random) => ({ truncateResponseAfterBytes: Math.floor(random.next() * 200) }),
  },
  { name: "delayed", share: 0.05, fault: (random) => ({ delayMs: 50 + Math.floor(random.next() * 200) }) },
];
const RECEIVER_FAULTS: readonly Share[] = [
  { name: "reset", share: 0.05, fault: () => ({ resetOnResponse: true }) },
  { name: "delayed", share: 0.05, fault: (random) => ({ delayMs: 50 + Math.floor(random.next() * 200) }) },
];

interface Share {
  readonly name: string;
  readonly share: number;
  readonly fault: (random: SeededRandom) => Fault;
}

/** A picker drawing each exchange's fault from `random`, and how often it chose each kind. */
function randomFaults(random: SeededRandom, shares: readonly Share[]) {
  const chosen = new Map(shares.map((share) => [share.name, 0]));
  const pick: FaultPicker = () => {
    let draw = random.next();
    for (const share of shares) {
      if (draw < share.share) {
        chosen.set(share.name, (chosen.get(share.name) ?? 0) + 1);
        return share.fault(random);
      }
      draw -= share.share;
    }
    return {};
  };
  return { pick, describe: () => [...chosen].map(([name, count]) => `${count} ${name}`).join(", ") };
}

/** `SOAK_SEED` replays a run; without it each run draws a new seed (and prints it). */
function soakSeed(): number {
  return process.env.SOAK_SEED === undefined ? randomInt(2 ** 31) : envNumber("SOAK_SEED", 0, 2 ** 32 - 1);
}

/**
 * Sends a submission until the service has answered it, always with the same key: a reset or a timeout after
 * sending leaves its fate unknown, and the key makes the repeat safe. Returns how many times it was resent.
 */
async function submitSurely(
  client: RouterJobsClient,
  routerId: string,
  request: JobRequestInput,
  idempotencyKey: string,
): Promise<number> {
  for (let resent = 0; ; resent++) {
    try {
      await client.submitJob(routerId, request, { idempotencyKey });
      return resent;
    } catch (error) {
      const unknownFate = error instanceof NetworkError || error instanceof TimeoutError;
      if (!unknownFate || resent >= 10) throw error;
    }
  }
}

export async function run(): Promise<BenchReport> {
  const seed = soakSeed();
  const clientFaults = randomFaults(new SeededRandom(hash32(seed, "client")), CLIENT_FAULTS);
  const receiverFaults = randomFaults(new SeededRandom(hash32(seed, "receiver")), RECEIVER_FAULTS);
  const dir = await mkdtemp(join(tmpdir(), "rj-soak-"));
  const routers = Array.from({ length: ROUTERS }, (_, index) => ({ id: randomUUID(), name: `r${index}` }));
  const teamId = randomUUID();
  const token = newToken(teamId);
  // Both processes start as bin/routerjobs.js starts them where Node can (process.execve, Node >= 22.15): the
  // young generation's flags on their command line, malloc's settings in their environment (on Node 20 the bin
  // sets the flags at run time, which holds less well, and cannot set malloc's).
  const receiver = await startReceiverProcess(
    join(dir, "receiver"),
    { ...MALLOC_ENVIRONMENT },
    YOUNG_GENERATION_FLAGS,
  );
  const receiverPort = Number(new URL(receiver.url).port);
  const receiverProxy = await FaultProxy.start({ host: "127.0.0.1", port: receiverPort });
  receiverProxy.set(receiverFaults.pick);
  const notifyUrl = receiver.notifyUrl.replace(`:${receiverPort}/`, `:${receiverProxy.port}/`);
  const serviceDir = join(dir, "service");
  const config: ServiceConfigInput = {
    database: serviceDir,
    dataDir: serviceDir,
    tickMs: 200,
    rateLimit: RATE_LIMIT,
    notifyRetryBaseMs: 100,
    notifyRetryMaxMs: 2000,
    // A notification swallowed by the outage frees its delivery slot after this.
    notifyTimeoutMs: 2000,
    notifyCa: receiver.ca,
    notifyAllow: ["127.0.0.0/8", "::1"],
  };
  const simulator: SimulatedBackendOptions = { seed, commandLatencyMs: 2, faultRate: ROUTER_FAULT_RATE };
  // The settings hold the team's token: they stay in the run's private folder, removed at the end.
  const settings = join(dir, "service-settings.json");
  await writeFile(
    settings,
    JSON.stringify({
      config,
      simulator,
      seed: { teams: [{ id: teamId, customer_id: randomUUID(), tokens: [token], routers }] },
    }),
    { mode: 0o600 },
  );
  const service = startNodeScript(join(PACKAGE_ROOT, "bench", "soak-service.mjs"), [settings], {
    nodeArgs: YOUNG_GENERATION_FLAGS,
    env: { ...MALLOC_ENVIRONMENT },
  });
  const serviceUrl = (
    JSON.parse(await service.printed(/^(\{"url".*)$/m, "the soak's service")) as { url: string }
  ).url;
  const serviceProxy = await FaultProxy.start({ host: "127.0.0.1", port: Number(new URL(serviceUrl).port) });
  serviceProxy.set(clientFaults.pick);
  const client = new RouterJobsClient({
    baseUrl: `http://127.0.0.1:${serviceProxy.port}`,
    token,
    budgetDir: join(dir, "state"),
    rateLimit: RATE_LIMIT,
  });
  const memory: { service: number; receiver: number }[] = [];
  const sample = async () => {
    const [serviceRss, receiverRss] = await Promise.all([
      rssMiB(service.child.pid as number),
      rssMiB(receiver.process.child.pid as number),
    ]);
    memory.push({ service: serviceRss ?? Number.NaN, receiver: receiverRss ?? Number.NaN });
  };
  const sampler = setInterval(() => void sample(), 2000);
  let outageEnd: NodeJS.Timeout | undefined;
  await sample();
  try {
    const started = performance.now();
    const keys: { routerId: string; key: string }[] = [];
    let next = 0;
    let repeats = 0;
    let resent = 0;
    let outageAt = Number.NaN;
    /** Wall clock (as the jobs' timestamps are) when the outage began. */
    let outageWallClock = Number.POSITIVE_INFINITY;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < JOBS) {
          const index = next++;
          const due = started + (RATE > 0 ? (index * 1000) / RATE : 0);
          const early = due - performance.now();
          if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
          if (index === Math.floor(JOBS * 0.4) && OUTAGE_MS > 0) {
            outageAt = performance.now() - started;
            outageWallClock = Date.now();
            receiverProxy.set({ blackhole: true });
            outageEnd = setTimeout(() => receiverProxy.set(receiverFaults.pick), OUTAGE_MS);
          }
          const routerId = (routers[index % ROUTERS] as { id: string }).id;
          const key = randomUUID();
          const request = {
            description: `soak ${index}`,
            script: `/system identity set name=soak-${index}`,
            express_execute: index % 2 === 0,
            notify_url: notifyUrl,
          };
          // Read after the await: `resent += await ...` would add to a value read before it (lost updates).
          const times = index % 10 === 0 ? 2 : 1;
          for (let copy = 0; copy < times; copy++) {
            const again = await submitSurely(client, routerId, request, key);
            resent += again;
          }
          if (times === 2) repeats++;
          keys.push({ routerId, key });
        }
      }),
    );
    const submitted = performance.now();
    // Wait until every job is terminal at the service and its terminal notification is at the receiver.
    let terminal = 0;
    while (performance.now() - started < DEADLINE_MS) {
      terminal = await terminalJobs(serviceUrl, serviceDir);
      if (terminal >= JOBS) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const reader = new ReceiverClient({
      url: receiver.url,
      readerToken: receiver.readerToken,
      ca: receiver.ca,
    });
    const latencies: number[] = [];
    /** Jobs that ended before the outage: the random faults alone. */
    const latenciesBefore: number[] = [];
    let heard = 0;
    try {
      for (const { key } of keys) {
        const remaining = DEADLINE_MS - (performance.now() - started);
        const waited = await reader.waitForJob({ idempotencyKey: key, timeoutMs: Math.max(1000, remaining) });
        const job = waited.job;
        if (waited.outcome !== "terminal" || !job) continue;
        heard++;
        const end = job.completed_at ?? job.failed_at ?? job.deleted_at;
        if (!end) continue;
        const latency = Date.parse(job.last_heard_at) - Date.parse(end);
        latencies.push(latency);
        if (Date.parse(end) < outageWallClock) latenciesBefore.push(latency);
      }
    } finally {
      await reader.close();
    }
    const seconds = (performance.now() - started) / 1000;
    await sample();
    clearInterval(sampler);
    // The service's counts, then its database read here once it has stopped (PGlite has one process at a time).
    service.child.kill("SIGTERM");
    await service.exited;
    const counts = JSON.parse(
      service
        .output()
        .stdout.split("\n")
        .find((line) => line.startsWith('{"admitted"')) ?? "{}",
    ) as { admitted?: number; limited?: number };
    const db = await openDatabase({ location: serviceDir });
    const { rows: duplicates } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM (SELECT idempotency_key FROM jobs GROUP BY idempotency_key HAVING count(*) > 1) d",
    );
    const { rows: outbox } = await db.query<{ attempts: number; n: number }>(
      "SELECT coalesce(sum(attempts),0)::int AS attempts, count(*)::int AS n FROM outbox",
    );
    const { rows: statuses } = await db.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM jobs GROUP BY status",
    );
    await db.close();
    const admitted = counts.admitted ?? Number.NaN;
    const limited = counts.limited ?? Number.NaN;
    // Baseline: the same scripts on the simulated routers alone, no service.
    const alone = new SimulatedBackend({ seed });
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
      const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;
      const values = memory.map((entry) => entry[side]);
      // The first quarter holds the databases' start-up peak: compare the second with the last.
      return mean(values.slice(-quarter)) - mean(values.slice(quarter, 2 * quarter));
    };
    const peak = (side: "service" | "receiver") => Math.max(...memory.map((entry) => entry[side]));
    const typical = (side: "service" | "receiver") =>
      percentile(
        memory.map((entry) => entry[side]),
        50,
      );
    const lines = [
      `${ROUTERS} routers, ${JOBS} jobs (${repeats} submissions repeated with the same key); seed ${seed} (SOAK_SEED=${seed} replays its faults)`,
      `rate limit ${RATE_LIMIT.count} per ${RATE_LIMIT.windowMs / 1000} s on the service and the client's shared budget: ${admitted} requests admitted, ${limited} answered 429 (goal 0)`,
      `client->service faults drawn: ${clientFaults.describe()}; the proxy broke ${serviceProxy.stats.broken} of ${serviceProxy.stats.exchanges} exchanges; ${resent} submissions sent again with their key`,
      `service->receiver faults drawn: ${receiverFaults.describe()}, and a ${OUTAGE_MS / 1000} s black hole from ${round(outageAt / 1000, 1)} s; the proxy broke ${receiverProxy.stats.broken} of ${receiverProxy.stats.exchanges} exchanges; routers failed ${ROUTER_FAULT_RATE * 100}% of their commands`,
      `jobs: ${statuses.map((row) => `${row.n} ${row.status}`).join(", ")}; lost ${lost} (goal 0); terminal notifications missing at the receiver ${unheard} (goal 0); duplicate jobs ${duplicates[0]?.n ?? 0} (goal 0)`,
      `notifications: ${outbox[0]?.n} sent in ${outbox[0]?.attempts} attempts`,
      `confirmation latency (terminal -> stored by the receiver): p50 ${round(percentile(latencies, 50))} ms, p99 ${round(percentile(latencies, 99))} ms, max ${round(percentile(latencies, 100))} ms; the ${latenciesBefore.length} jobs that ended before the outage: p50 ${round(percentile(latenciesBefore, 50))} ms, p99 ${round(percentile(latenciesBefore, 99))} ms`,
      `offered ${RATE > 0 ? `${RATE} jobs/s` : "as fast as possible"}; throughput ${round(JOBS / seconds, 1)} jobs/s end to end (submitting took ${round((submitted - started) / 1000, 1)} s) vs ${round(JOBS / aloneSeconds, 1)} scripts/s on the simulated routers alone (ratio ${round(aloneSeconds / seconds, 3)})`,
      `memory (rss, ${memory.length} samples): service peak ${round(peak("service"))} MiB, median ${round(typical("service"))}, growth ${round(growth("service"))} MiB (last quarter vs second); receiver peak ${round(peak("receiver"))} MiB, median ${round(typical("receiver"))}, growth ${round(growth("receiver"))} MiB (goal: each <= 200 MiB)`,
    ];
    return {
      title: "soak: jobs and notifications under random faults on both hops",
      metrics: {
        seed,
        routers: ROUTERS,
        jobs: JOBS,
        lost,
        unheard,
        duplicates: duplicates[0]?.n ?? 0,
        rateLimited429s: limited,
        resentSubmissions: resent,
        p99ConfirmMs: round(percentile(latencies, 99)),
        jobsPerSec: round(JOBS / seconds, 2),
        p50ConfirmMs: round(percentile(latencies, 50)),
        p99ConfirmBeforeOutageMs: round(percentile(latenciesBefore, 99)),
        serviceRssPeakMiB: round(peak("service")),
        receiverRssPeakMiB: round(peak("receiver")),
        serviceRssGrowthMiB: round(growth("service")),
        receiverRssGrowthMiB: round(growth("receiver")),
      },
      lines,
    };
  } finally {
    clearInterval(sampler);
    clearTimeout(outageEnd);
    await client.close();
    await serviceProxy.close();
    await service.stop();
    await receiverProxy.close();
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Jobs terminal at the service, by its admin API (as `routerjobs service status` asks it). */
async function terminalJobs(url: string, data: string): Promise<number> {
  const status = (await callAdmin({ url, data }, "GET", "/status")) as { jobs?: Record<string, number> };
  const jobs = status.jobs ?? {};
  return (jobs.completed ?? 0) + (jobs.failed ?? 0) + (jobs.deleted ?? 0);
}
