/**
 * The portal's orchestration log opens as fast for a router with 10,000 jobs as for one with ten (keyset paging,
 * issue 23): the first page of a 10,000-job router's log (HTML, 50 jobs) against the API's job-list page of the
 * same router (`limit=50`, JSON) and against the log of a router with 10 jobs, in the same run. Sequential
 * requests (latency, not throughput), the three kinds interleaved round by round so that drift on a shared
 * machine falls on all of them alike. PGlite, as `npm run demo` runs it.
 */
import { Pool } from "undici";
import { SimulatedBackend } from "../src/routeros/simulator/index.js";
import { resolveConfig } from "../src/service/config.js";
import { mintSignInCode } from "../src/service/portal/index.js";
import { type RunningService, startService } from "../src/service/server.js";
import { redeemSignInLink } from "../test/service/portal/portal-client.js";
import { type BenchReport, percentile, round, timedGet } from "./harness.js";

const TEAM = "a0000000-0000-4000-8000-000000000001";
const TOKEN_ID = "aa000000-0000-4000-8000-000000000001";
const TOKEN = `${TOKEN_ID}:${TEAM}:${"A1b2C3d4E5".repeat(6)}xy`;
const BIG = "b1000000-0000-4000-8000-000000000001";
const SMALL = "b2000000-0000-4000-8000-000000000002";
/** A router with exactly one page of jobs: the same 50 rows as the big router's first page. */
const FIFTY = "b3000000-0000-4000-8000-000000000003";
const BIG_JOBS = 10_000;
const SMALL_JOBS = 10;
const ROUNDS = 20;
const PER_ROUND = 10;
const WARMUP = 20;

/** `count` finished jobs straight into the table, as test/service/jobs/job-page.test.ts fills them. */
async function fillJobs(service: RunningService, routerId: string, count: number): Promise<void> {
  const db = service.app.db;
  await db.query(
    `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
       description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at,
       started_at, completed_at, failed_at)
     SELECT gen_random_uuid(), $1, $2, n, 't' || n, gen_random_uuid(), gen_random_uuid(), 'h',
       'deploy ' || n, '/ip address add address=10.0.0.1/24 interface=ether1', false, false, false,
       CASE WHEN n % 7 = 0 THEN 'failed' ELSE 'completed' END, 'done', now() - interval '1 hour',
       now() - interval '59 minutes', CASE WHEN n % 7 = 0 THEN NULL ELSE now() END,
       CASE WHEN n % 7 = 0 THEN now() ELSE NULL END
     FROM generate_series(1, $3::int) AS n`,
    [routerId, TEAM, count],
  );
  await db.query("UPDATE routers SET next_seq = $2 WHERE id = $1", [routerId, count + 1]);
}

export async function run(): Promise<BenchReport> {
  const service = await startService({
    config: resolveConfig({
      database: "memory://",
      tickMs: 60_000,
      rateLimit: { count: 1_000_000_000, windowMs: 1000 },
      // The bench measures a page's cost, not the portal's limits: one session asks for thousands a minute.
      portalPagesPerSession: { count: 1_000_000_000, windowMs: 1000 },
      portalPagesPerTeam: { count: 1_000_000_000, windowMs: 1000 },
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
          routers: [
            { id: BIG, name: "big" },
            { id: SMALL, name: "small" },
            { id: FIFTY, name: "fifty" },
          ],
        },
      ],
    },
  });
  const pool = new Pool(service.url, {
    connections: 1,
    ...(service.ca ? { connect: { ca: service.ca } } : {}),
  });
  try {
    await fillJobs(service, BIG, BIG_JOBS);
    await fillJobs(service, SMALL, SMALL_JOBS);
    await fillJobs(service, FIFTY, 50);
    const code = await mintSignInCode(service.app.db, { teamId: TEAM, tokenId: TOKEN_ID }, new Date());
    const signIn = await redeemSignInLink(`${service.url}/portal/sign-in/code/${code}`, pool);
    const session = [signIn.headers["set-cookie"] ?? []]
      .flat()
      .find((line) => line.startsWith("__Host-rj_session="))
      ?.split(";")[0];
    if (!session) throw new Error(`the sign-in link gave no session (HTTP ${signIn.status})`);

    const kinds = {
      portalBig: () => timedGet(pool, `/portal/routers/${BIG}`, { cookie: session }),
      apiBig: () => timedGet(pool, `/api/routers/${BIG}/jobs?limit=50`, { authorization: `Bearer ${TOKEN}` }),
      portalSmall: () => timedGet(pool, `/portal/routers/${SMALL}`, { cookie: session }),
      // The API's page of the small router: how much of the big/small ratio is 50 rows against 10.
      apiSmall: () =>
        timedGet(pool, `/api/routers/${SMALL}/jobs?limit=50`, { authorization: `Bearer ${TOKEN}` }),
      // The same 50 rows from a router with 50 jobs: what the 9,950 older jobs cost the page.
      portalFifty: () => timedGet(pool, `/portal/routers/${FIFTY}`, { cookie: session }),
    };
    type Kind = keyof typeof kinds;
    /** p50/p95 of every kind, interleaved round by round. */
    const measure = async () => {
      const samples = Object.fromEntries(Object.keys(kinds).map((name) => [name, [] as number[]])) as Record<
        Kind,
        number[]
      >;
      for (let i = 0; i < WARMUP; i++) for (const kind of Object.values(kinds)) await kind();
      for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
        for (const [name, kind] of Object.entries(kinds) as [Kind, () => Promise<number>][]) {
          for (let i = 0; i < PER_ROUND; i++) samples[name].push(await kind());
        }
      }
      return {
        p50: (name: Kind) => round(percentile(samples[name], 50)),
        p95: (name: Kind) => round(percentile(samples[name], 95)),
      };
    };
    // PGlite has no autovacuum: after 10,000 jobs its statistics still say "few rows", and the planner sorts
    // them all rather than reading the (router_id, seq_id) index backwards. Measured as it is, then analysed.
    const stale = await measure();
    await service.app.db.query("ANALYZE jobs");
    const analysed = await measure();
    const figures = (label: string, { p50, p95 }: Awaited<ReturnType<typeof measure>>) => ({
      [`${label}PortalBigP50Ms`]: p50("portalBig"),
      [`${label}PortalBigP95Ms`]: p95("portalBig"),
      [`${label}ApiBigP50Ms`]: p50("apiBig"),
      [`${label}PortalSmallP50Ms`]: p50("portalSmall"),
      [`${label}ApiSmallP50Ms`]: p50("apiSmall"),
      [`${label}PortalFiftyP50Ms`]: p50("portalFifty"),
      [`${label}PortalVsApiRatio`]: round(p50("portalBig") / p50("apiBig")),
      [`${label}BigVsSmallRatio`]: round(p50("portalBig") / p50("portalSmall")),
      [`${label}BigVsFiftyRatio`]: round(p50("portalBig") / p50("portalFifty")),
    });
    const describe = (label: string, { p50, p95 }: Awaited<ReturnType<typeof measure>>) => [
      `${label}:`,
      `  portal log, ${BIG_JOBS} jobs: p50 ${p50("portalBig")} ms (p95 ${p95("portalBig")}); API page (limit 50), same router: p50 ${p50("apiBig")} ms (p95 ${p95("apiBig")})`,
      `  portal / API: ${round(p50("portalBig") / p50("apiBig"))}x (goal <= 2x: ${p50("portalBig") <= 2 * p50("apiBig") ? "met" : "NOT met"})`,
      `  portal log, ${SMALL_JOBS} jobs: p50 ${p50("portalSmall")} ms -> ${BIG_JOBS} / ${SMALL_JOBS} jobs ${round(p50("portalBig") / p50("portalSmall"))}x (API: ${round(p50("apiBig") / p50("apiSmall"))}x; 50 rows against 10)`,
      `  portal log, 50 jobs (the same 50 rows): p50 ${p50("portalFifty")} ms -> ${BIG_JOBS} / 50 jobs ${round(p50("portalBig") / p50("portalFifty"))}x`,
    ];
    return {
      title: `portal log first page, ${BIG_JOBS.toLocaleString("en")} jobs vs API page and ${SMALL_JOBS} jobs`,
      metrics: {
        ...figures("stale", stale),
        ...figures("analysed", analysed),
        goalMet: analysed.p50("portalBig") <= 2 * analysed.p50("apiBig"),
        requestsEach: ROUNDS * PER_ROUND,
      },
      lines: [
        ...describe("statistics as PGlite leaves them after the jobs arrived (no autovacuum)", stale),
        ...describe("after ANALYZE jobs", analysed),
        `${ROUNDS * PER_ROUND} sequential requests of each kind per phase, interleaved in ${ROUNDS} rounds, after ${WARMUP} warm-up rounds`,
      ],
    };
  } finally {
    await pool.close();
    await service.close();
  }
}
