/**
 * What the deploys pages cost where they cost most: the window's cap of marked jobs (5,000), grouped on every
 * load (deploys.ts stores nothing). The routers list of the same team beside them, as the page people open
 * first. Sequential requests, interleaved, after ANALYZE. PGlite, as `npm run demo` runs it.
 */
import { Pool } from "undici";
import { markDescription, tagOf } from "../src/contract/attempt-marker.js";
import { SimulatedBackend } from "../src/routeros/simulator/index.js";
import { resolveConfig } from "../src/service/config.js";
import { mintSignInCode } from "../src/service/portal/index.js";
import { type RunningService, startService } from "../src/service/server.js";
import { redeemSignInLink } from "../test/service/portal/portal-client.js";
import { type BenchReport, percentile, round, timedGet } from "./harness.js";

const TEAM = "a0000000-0000-4000-8000-000000000001";
const TOKEN_ID = "aa000000-0000-4000-8000-000000000001";
const TOKEN = `${TOKEN_ID}:${TEAM}:${"A1b2C3d4E5".repeat(6)}xy`;
const ROUTERS = 50;
/** 100 deploys of the 50 routers in three waves, 90 minutes apart: 5,000 marked jobs, the page's cap. */
const DEPLOYS = 100;
const REQUESTS = 100;
const WARMUP = 10;

const routerId = (index: number) => `b0000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`;

/** The deploys' jobs straight into the table, each as `routerjobs apply` marks it, finished a minute later. */
async function fillDeploys(service: RunningService): Promise<string> {
  const db = service.app.db;
  const start = Date.now() - DEPLOYS * 90 * 60_000;
  let seq = 0;
  let firstOfNewest = "";
  for (let deploy = 0; deploy < DEPLOYS; deploy++) {
    const rows: unknown[] = [];
    for (let router = 0; router < ROUTERS; router++) {
      const wave = router === 0 ? 1 : router <= 5 ? 2 : 3;
      const marker = {
        resourceTag: tagOf(`office/r${router}/dns`),
        definitionTag: tagOf(`definition ${deploy}`),
        instanceTag: tagOf(`instance ${deploy}`),
        attempt: 1,
      };
      const created = new Date(start + deploy * 90 * 60_000 + wave * 120_000 + router * 100);
      seq += 1;
      const id = crypto.randomUUID();
      if (deploy === DEPLOYS - 1 && router === 0) firstOfNewest = id;
      rows.push([
        id,
        routerId(router),
        seq,
        markDescription("dns servers", marker, { wave, waves: 3 }),
        router % 17 === 3 ? "failed" : "completed",
        created,
      ]);
    }
    await db.query(
      `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
         description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at,
         started_at, completed_at, failed_at, error)
       SELECT (r->>0)::uuid, (r->>1)::uuid, $2, (r->>2)::int, 't' || (r->>2), gen_random_uuid(), gen_random_uuid(),
         'h', r->>3, '/ip dns set servers=10.0.0.53', false, true, true, r->>4, 'done', (r->>5)::timestamptz,
         (r->>5)::timestamptz, CASE WHEN r->>4 = 'completed' THEN (r->>5)::timestamptz + interval '1 minute' END,
         CASE WHEN r->>4 = 'failed' THEN (r->>5)::timestamptz + interval '1 minute' END,
         CASE WHEN r->>4 = 'failed' THEN 'failure: bad (line 1 column 1)' END
       FROM jsonb_array_elements($1::jsonb) AS r`,
      [JSON.stringify(rows), TEAM],
    );
  }
  await db.query("ANALYZE jobs");
  return firstOfNewest;
}

export async function run(): Promise<BenchReport> {
  const service = await startService({
    config: resolveConfig({
      database: "memory://",
      tickMs: 60_000,
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
          routers: Array.from({ length: ROUTERS }, (_, index) => ({
            id: routerId(index),
            name: `r${index}`,
          })),
        },
      ],
    },
  });
  const pool = new Pool(service.url, {
    connections: 1,
    ...(service.ca ? { connect: { ca: service.ca } } : {}),
  });
  try {
    const newest = await fillDeploys(service);
    const code = await mintSignInCode(service.app.db, { teamId: TEAM, tokenId: TOKEN_ID }, new Date());
    const signIn = await redeemSignInLink(`${service.url}/portal/sign-in/code/${code}`, pool);
    const cookie = [signIn.headers["set-cookie"] ?? []]
      .flat()
      .find((line) => line.startsWith("__Host-rj_session="))
      ?.split(";")[0];
    if (!cookie) throw new Error(`the sign-in link gave no session (HTTP ${signIn.status})`);
    const kinds = {
      routers: () => timedGet(pool, "/portal", { cookie }),
      deploys: () => timedGet(pool, "/portal/deploys", { cookie }),
      deploy: () => timedGet(pool, `/portal/deploys/${newest}`, { cookie }),
    };
    type Kind = keyof typeof kinds;
    const samples: Record<Kind, number[]> = { routers: [], deploys: [], deploy: [] };
    for (let i = 0; i < WARMUP; i++) for (const kind of Object.values(kinds)) await kind();
    for (let i = 0; i < REQUESTS; i++)
      for (const [name, kind] of Object.entries(kinds) as [Kind, () => Promise<number>][])
        samples[name].push(await kind());
    const p50 = (name: Kind) => round(percentile(samples[name], 50));
    const p95 = (name: Kind) => round(percentile(samples[name], 95));
    return {
      title: `portal deploys pages, ${DEPLOYS} deploys of ${ROUTERS} routers (${DEPLOYS * ROUTERS} marked jobs)`,
      metrics: {
        routersP50Ms: p50("routers"),
        deploysP50Ms: p50("deploys"),
        deploysP95Ms: p95("deploys"),
        deployP50Ms: p50("deploy"),
        deployP95Ms: p95("deploy"),
        deploysVsRoutersRatio: round(p50("deploys") / p50("routers")),
      },
      lines: [
        `routers list: p50 ${p50("routers")} ms (p95 ${p95("routers")})`,
        `deploys page (newest timeline + list of ${DEPLOYS}): p50 ${p50("deploys")} ms (p95 ${p95("deploys")})`,
        `one deploy's page: p50 ${p50("deploy")} ms (p95 ${p95("deploy")})`,
        `${REQUESTS} sequential requests of each, interleaved, after ${WARMUP} warm-up rounds`,
      ],
    };
  } finally {
    await pool.close();
    await service.close();
  }
}
