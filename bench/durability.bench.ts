/**
 * What durability costs the service: async submissions per second on a PGlite data directory as PGlite ships
 * (commits acknowledged from the page cache: no fsync at all) against the store as it opens now (every 2xx
 * after an fsync of the WAL, one fsync per group of concurrent commits), at 1 and at 8 requests in flight,
 * and a bare Fastify route in the same run. test/service/database/durable-before-2xx.slow.test.ts proves the order.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import Fastify, { type FastifyInstance } from "fastify";
import { Pool } from "undici";
import { SimulatedBackend } from "../src/routeros/simulator/index.js";
import { createApp } from "../src/service/app.js";
import { resolveConfig } from "../src/service/config.js";
import { type Database, openDatabase } from "../src/service/database/database.js";
import { serviceKeyring } from "../src/service/routers/router-secrets.js";
import { applySeed } from "../src/service/seed.js";
import { type BenchReport, round } from "./harness.js";
import { plainPgliteDatabase } from "./plain-pglite.js";

const TEAM = "a0000000-0000-4000-8000-000000000001";
const TOKEN = `aa000000-0000-4000-8000-000000000001:${TEAM}:${"A1b2C3d4E5".repeat(6)}xy`;
const ROUTER = "b0000000-0000-4000-8000-000000000001";
const REQUESTS = 600;

/** PGlite as it ships, behind the store's interface: what the service ran on before (issue 20). */
async function shippedPglite(dataDir: string): Promise<Database> {
  const db = await PGlite.create(dataDir);
  return plainPgliteDatabase(db);
}

async function submissionsPerSecond(url: string, path: string, inFlight: number, expected: number) {
  const pool = new Pool(url, { connections: inFlight });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < REQUESTS) {
        const index = next++;
        const response = await pool.request({
          method: "POST",
          path,
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ description: `durable ${index}`, script: "/system identity set name=edge" }),
        });
        await response.body.dump();
        if (response.statusCode !== expected) throw new Error(`${path}: HTTP ${response.statusCode}`);
      }
    }),
  );
  await pool.close();
  return round(REQUESTS / ((performance.now() - started) / 1000), 0);
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

async function service(db: Database, dataDir: string, inFlight: number): Promise<number> {
  const config = resolveConfig({
    database: dataDir,
    tickMs: 3_600_000,
    rateLimit: { count: 1_000_000_000, windowMs: 1000 },
  });
  const app = await createApp({ config, backend: new SimulatedBackend(), db }, { logger: false });
  try {
    await app.ready();
    await applySeed(
      app.db,
      { teams: [{ id: TEAM, tokens: [TOKEN], routers: [{ id: ROUTER, name: "edge" }] }] },
      () => serviceKeyring(app.config),
    );
    return await submissionsPerSecond(await listen(app), `/api/asynchronous/${ROUTER}`, inFlight, 202);
  } finally {
    await app.close();
  }
}

async function bare(inFlight: number): Promise<number> {
  const app = Fastify();
  app.post("/bare", async (request) => ({ status: "success", data: request.body }));
  try {
    return await submissionsPerSecond(await listen(app), "/bare", inFlight, 200);
  } finally {
    await app.close();
  }
}

export async function run(): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), "routerjobs-durability-"));
  const metrics: BenchReport["metrics"] = {};
  const lines: string[] = [];
  try {
    // PGlite as shipped first: the store sets V8's --liftoff-only for the whole process when it opens.
    for (const [label, open] of [
      ["shipped", shippedPglite],
      ["durable", (path: string) => openDatabase({ location: path })],
    ] as const) {
      for (const inFlight of [1, 8]) {
        const path = join(dir, `${label}-${inFlight}`);
        const db = await open(path);
        try {
          metrics[`${label}.inFlight${inFlight}.perSec`] = await service(db, path, inFlight);
        } finally {
          await db.close();
        }
      }
    }
    for (const inFlight of [1, 8]) {
      metrics[`bare.inFlight${inFlight}.perSec`] = await bare(inFlight);
      const durable = metrics[`durable.inFlight${inFlight}.perSec`] as number;
      const shipped = metrics[`shipped.inFlight${inFlight}.perSec`] as number;
      metrics[`durableVsShipped.inFlight${inFlight}`] = round(durable / shipped);
      lines.push(
        `${inFlight} in flight: shipped (no fsync) ${shipped}/s, durable (fsync before 2xx) ${durable}/s ` +
          `(${round(durable / shipped)}x), bare Fastify ${metrics[`bare.inFlight${inFlight}.perSec`]}/s`,
      );
    }
    return { title: "Async submit throughput: fsync before each 2xx vs PGlite as shipped", metrics, lines };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
