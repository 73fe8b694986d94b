/**
 * Notifications for a receiver that is down (issue 45, items 2 and 6): what 1,200 jobs whose notifications go to
 * a closed loopback port cost the store, and another team. One service in this process (PGlite), the defaults
 * of the notifier (retries from 1 s doubling to 10 min, 16 slots, 10 s timeout). Phases alternate, each
 * `NOTIFY_BENCH_PHASE_S` (default 20) seconds, two rounds:
 *
 * - alone: team V submits an express job every 250 ms over 4 routers, each notifying V's HTTPS receiver;
 * - down: the same, while team H has 1,200 jobs whose three notifications (loaded, running, completed) go to a
 *   port nothing listens on, the first of each in back-off as after some two minutes of the outage (7 attempts
 *   made, the 8th due within 64 s), the later two waiting for it;
 * - holes: the same, while team H submits a job a second whose notifications go to 40 receivers that accept
 *   and never answer, one port after the other (issue 45, item 6).
 *
 * It reports, per phase: V's latency from submission to its `completed` notification received (p50, p99; a
 * job not heard within 60 s of its phase counts as 60 s, and is reported unheard),
 * `/healthz` answered (p50, p99, sampled every 100 ms), statements the service sent to its store per second
 * (all of them, and the notifier's leases), and H's failed attempts per second (its retries coming due, or
 * its timeouts); then the ratios down/alone and holes/alone of V's p99 (the goal: at most 2x) and down/alone of
 * the store's statements.
 */
import { randomUUID } from "node:crypto";
import { Pool } from "undici";
import { SimulatedBackend } from "../src/routeros/simulator/index.js";
import { resolveConfig } from "../src/service/config.js";
import type { Database } from "../src/service/database/database.js";
import { enqueueNotification } from "../src/service/jobs/rows.js";
import { submitJob } from "../src/service/jobs/submit.js";
import { type RunningService, startService } from "../src/service/server.js";
import { blackHole, refusingPort } from "../test/helpers/black-hole.js";
import { HttpsSink } from "../test/helpers/https-sink.js";
import { type BenchReport, percentile, round } from "./harness.js";

const PHASE_MS = Number(process.env.NOTIFY_BENCH_PHASE_S ?? 20) * 1000;
const PENDING_JOBS = 1200;
const ROUNDS = 2;
const SUBMIT_EVERY_MS = 250;
/** How long after its phase a job's `completed` may take to be heard before it counts as unheard. */
const HEARD_GRACE_MS = 60_000;

const VICTIM = "c0000000-0000-4000-8000-000000000001";
const VICTIM_TOKEN = `cc000000-0000-4000-8000-000000000001:${VICTIM}:${"V1c7iMt0kn".repeat(6)}vv`;
const HOSTILE = "d0000000-0000-4000-8000-000000000002";
const HOSTILE_TOKEN = `dd000000-0000-4000-8000-000000000001:${HOSTILE}:${"H0st1leT0k".repeat(6)}hh`;
const HOSTILE_ROUTER = "d1000000-0000-4000-8000-000000000001";
const BLACK_HOLES = 40;
const victimRouter = (index: number) => `c1000000-0000-4000-8000-00000000000${index + 1}`;

interface Phase {
  readonly name: string;
  readonly victimP50Ms: number;
  readonly victimP99Ms: number;
  /** Team V's jobs whose `completed` was not heard within HEARD_GRACE_MS of the phase's end. */
  readonly victimUnheard: number;
  readonly healthP50Ms: number;
  readonly healthP99Ms: number;
  readonly statementsPerSec: number;
  readonly leasesPerSec: number;
  readonly hostileAttemptsPerSec: number;
}

/** Every statement the service sends its store, counted by kind (the store object is shared, so patched). */
function countStatements(db: Database): { all: number; leases: number; failed: number } {
  const counts = { all: 0, leases: 0, failed: 0 };
  const query = db.query.bind(db);
  const transaction = db.transaction.bind(db);
  const count = (sql: string) => {
    counts.all++;
    if (sql.includes("attempts = attempts + 1")) counts.leases++;
    if (sql.includes("last_error = $2")) counts.failed++;
  };
  Object.assign(db, {
    query: (sql: string, params?: readonly unknown[]) => {
      count(sql);
      return query(sql, params);
    },
    transaction: (fn: Parameters<Database["transaction"]>[0]) =>
      transaction((tx) =>
        fn({
          query: (sql: string, params?: readonly unknown[]) => {
            count(sql);
            return tx.query(sql, params);
          },
        } as never),
      ),
  });
  return counts;
}

/**
 * Team H's jobs, their notifications to `url` as two minutes into an outage. Queued as if a day ahead (not due),
 * then moved back in one statement, so that the notifier meets them all in the state the outage left them.
 */
async function queueOutage(db: Database, url: string): Promise<void> {
  const ahead = new Date(Date.now() + 86_400_000);
  for (let index = 0; index < PENDING_JOBS; index++) {
    const result = await submitJob(db, {
      teamId: HOSTILE,
      routerId: HOSTILE_ROUTER,
      request: {
        description: `down ${index}`,
        script: ":put 1",
        make_backup: false,
        express_execute: false,
        needs_acknowledgement: false,
        notify_url: url,
      },
      idempotencyKey: randomUUID(),
      requestId: randomUUID(),
      now: ahead,
      idempotencyTtlMs: 1000,
    });
    if (result.kind !== "created") throw new Error(result.kind);
    await enqueueNotification(db, result.job.id, ahead);
    await enqueueNotification(db, result.job.id, ahead);
  }
  // Done with as a router's run would have left them: the scheduler has nothing of team H's to run.
  await db.query("UPDATE jobs SET execution = 'done' WHERE team_id = $1", [HOSTILE]);
  await db.query(
    `UPDATE outbox SET created_at = $1::timestamptz - interval '2 minutes',
       attempts = CASE WHEN seq = 1 THEN 7 ELSE 0 END,
       last_error = CASE WHEN seq = 1 THEN 'connect ECONNREFUSED' END,
       next_attempt_at = CASE WHEN seq = 1 THEN $1::timestamptz + random() * interval '64 seconds'
                              ELSE $1::timestamptz - interval '2 minutes' END
     WHERE team_id = $2`,
    [new Date(), HOSTILE],
  );
}

/**
 * Before the next phase alone: team H's jobs run, their notifications marked delivered (a row deleted would
 * free the job's next one, and a failed attempt reschedules the row it ends), the attempts in flight timed out.
 */
async function quietHoles(db: Database, holes: readonly { accepted(): number; ended(): number }[]) {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
  for (;;) {
    const { rows } = await db.query<{ running: number }>(
      "SELECT count(*)::int AS running FROM jobs WHERE team_id = $1 AND execution <> 'done'",
      [HOSTILE],
    );
    if (rows[0]?.running === 0) break;
    await pause();
  }
  const markHeard = () =>
    db.query(
      "UPDATE outbox SET delivered_at = now() WHERE team_id = $1 AND delivered_at IS NULL AND abandoned_at IS NULL",
      [HOSTILE],
    );
  await markHeard();
  while (holes.some((hole) => hole.accepted() > hole.ended())) await pause();
  await markHeard();
}

/** Submits `job` over and over every `everyMs` while `until` holds. */
async function submitting(
  pool: Pool,
  token: string,
  router: (index: number) => string,
  job: (index: number) => Record<string, unknown>,
  everyMs: number,
  until: () => boolean,
  onSubmit: (key: string) => void = () => {},
): Promise<void> {
  for (let index = 0; until(); index++) {
    const key = randomUUID();
    onSubmit(key);
    const response = await pool.request({
      method: "POST",
      path: `/api/asynchronous/${router(index)}`,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "idempotency-key": key,
      },
      body: JSON.stringify(job(index)),
    });
    await response.body.dump();
    if (response.statusCode !== 202) throw new Error(`submission: HTTP ${response.statusCode}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

async function phase(
  name: string,
  service: RunningService,
  sink: HttpsSink,
  counts: { all: number; leases: number; failed: number },
  holes?: readonly string[],
): Promise<Phase> {
  const pool = new Pool(service.url, { connections: 8 });
  const submitted = new Map<string, number>();
  const health: number[] = [];
  const before = { ...counts };
  const started = performance.now();
  const running = () => performance.now() - started < PHASE_MS;
  const victim = submitting(
    pool,
    VICTIM_TOKEN,
    (index) => victimRouter(index % 4),
    (index) => ({
      description: `${name} ${index}`,
      script: ":put 1",
      express_execute: true,
      notify_url: `${sink.url}/hook`,
    }),
    SUBMIT_EVERY_MS,
    running,
    (key) => submitted.set(key, Date.now()),
  );
  const hostile = holes
    ? submitting(
        pool,
        HOSTILE_TOKEN,
        () => HOSTILE_ROUTER,
        (index) => ({
          description: `hole ${index}`,
          script: ":put 1",
          express_execute: true,
          notify_url: holes[index % holes.length],
        }),
        1000,
        running,
      )
    : Promise.resolve();
  const probing = (async () => {
    while (performance.now() - started < PHASE_MS) {
      const at = performance.now();
      const response = await pool.request({ method: "GET", path: "/healthz" });
      await response.body.dump();
      health.push(performance.now() - at);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  await Promise.all([victim, hostile, probing]);
  const seconds = (performance.now() - started) / 1000;
  const after = { ...counts };
  const completedAt = () =>
    new Map(
      sink.received
        .filter((item) => item.body.status === "completed")
        .map((item) => [String(item.body.idempotency_key), item.at]),
    );
  // A job not heard within the grace counts at the grace: its latency is at least that.
  const deadline = Date.now() + HEARD_GRACE_MS;
  while (Date.now() < deadline && ![...submitted.keys()].every((key) => completedAt().has(key))) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const heard = completedAt();
  const latencies = [...submitted].map(([key, at]) =>
    Math.min(HEARD_GRACE_MS, (heard.get(key) ?? Infinity) - at),
  );
  const unheard = [...submitted.keys()].filter((key) => !heard.has(key)).length;
  await pool.close();
  return {
    name,
    victimP50Ms: round(percentile(latencies, 50)),
    victimP99Ms: round(percentile(latencies, 99)),
    victimUnheard: unheard,
    healthP50Ms: round(percentile(health, 50)),
    healthP99Ms: round(percentile(health, 99)),
    statementsPerSec: round((after.all - before.all) / seconds, 1),
    leasesPerSec: round((after.leases - before.leases) / seconds, 1),
    hostileAttemptsPerSec: round((after.failed - before.failed) / seconds, 1),
  };
}

export async function run(): Promise<BenchReport> {
  const sink = await HttpsSink.start();
  const down = `https://127.0.0.1:${await refusingPort()}/hook`;
  const service = await startService({
    config: resolveConfig({
      database: "memory://",
      tickMs: 60_000,
      rateLimit: { count: 1_000_000_000, windowMs: 1000 },
      notifyCa: sink.ca,
      notifyAllow: ["127.0.0.0/8"],
    }),
    backend: new SimulatedBackend(),
    host: "127.0.0.1",
    port: 0,
    logger: false,
    seed: {
      teams: [
        {
          id: VICTIM,
          tokens: [VICTIM_TOKEN],
          routers: [0, 1, 2, 3].map((index) => ({ id: victimRouter(index), name: `v${index}` })),
        },
        { id: HOSTILE, tokens: [HOSTILE_TOKEN], routers: [{ id: HOSTILE_ROUTER, name: "h" }] },
      ],
    },
  });
  const db = service.app.db;
  const counts = countStatements(db);
  const holes = await Promise.all(Array.from({ length: BLACK_HOLES }, () => blackHole()));
  const holeUrls = holes.map((hole) => `https://127.0.0.1:${hole.port}/hook`);
  const phases: Phase[] = [];
  try {
    for (let roundIndex = 1; roundIndex <= ROUNDS; roundIndex++) {
      phases.push(await phase(`alone ${roundIndex}`, service, sink, counts));
      await queueOutage(db, down);
      phases.push(await phase(`down ${roundIndex}`, service, sink, counts));
      await db.query("DELETE FROM outbox WHERE team_id = $1", [HOSTILE]);
      phases.push(await phase(`holes ${roundIndex}`, service, sink, counts, holeUrls));
      await quietHoles(db, holes);
    }
  } finally {
    await service.close();
    for (const hole of holes) hole.server.close();
    await sink.close();
  }
  const worst = (prefix: string, key: keyof Phase) =>
    Math.max(...phases.filter((p) => p.name.startsWith(prefix)).map((p) => p[key] as number));
  const mean = (prefix: string, key: keyof Phase) => {
    const values = phases.filter((p) => p.name.startsWith(prefix)).map((p) => p[key] as number);
    return values.reduce((sum, value) => sum + value, 0) / values.length;
  };
  const metrics: Record<string, number> = {
    pendingJobs: PENDING_JOBS,
    phaseSeconds: PHASE_MS / 1000,
    victimP99RatioDownToAlone: round(worst("down", "victimP99Ms") / worst("alone", "victimP99Ms")),
    victimP99RatioHolesToAlone: round(worst("holes", "victimP99Ms") / worst("alone", "victimP99Ms")),
    statementsRatioDownToAlone: round(mean("down", "statementsPerSec") / mean("alone", "statementsPerSec")),
  };
  for (const p of phases) {
    const name = p.name.replace(" ", "");
    metrics[`${name}VictimP50Ms`] = p.victimP50Ms;
    metrics[`${name}VictimP99Ms`] = p.victimP99Ms;
    metrics[`${name}VictimUnheard`] = p.victimUnheard;
    metrics[`${name}HealthP99Ms`] = p.healthP99Ms;
    metrics[`${name}StatementsPerSec`] = p.statementsPerSec;
    metrics[`${name}HostileAttemptsPerSec`] = p.hostileAttemptsPerSec;
  }
  return {
    title: "notifications for a receiver that is down: another team's latency and the store's statements",
    metrics,
    lines: [
      ...phases.map(
        (p) =>
          `${p.name.padEnd(8)} team V completed p50 ${p.victimP50Ms} ms p99 ${p.victimP99Ms} ms (${p.victimUnheard} unheard after ${HEARD_GRACE_MS / 1000} s); /healthz p50 ${p.healthP50Ms} ms p99 ${p.healthP99Ms} ms; store ${p.statementsPerSec} statements/s (${p.leasesPerSec} leases/s); team H ${p.hostileAttemptsPerSec} attempts/s`,
      ),
      `team V's p99, worst down / worst alone: ${metrics.victimP99RatioDownToAlone}x; worst holes / worst alone: ${metrics.victimP99RatioHolesToAlone}x (goal: at most 2x)`,
      `store statements/s, down / alone: ${metrics.statementsRatioDownToAlone}x (${PENDING_JOBS} jobs' notifications to a closed port, ${PENDING_JOBS} of them in back-off)`,
    ],
  };
}
