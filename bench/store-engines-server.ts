/**
 * One server of bench/store-engines.bench.ts, in a process of its own so that every engine runs on the same
 * Node and its memory is its own: `node --import tsx bench/store-engines-server.ts <kind> <engine> <location>`.
 * Prints `{"url": ...}` once it listens; closes its database and exits on SIGTERM.
 * - `bare`: a Fastify route with the submission's path that answers 202 with the body (the issue's baseline).
 * - `route`: the async submission route on one engine: the service's server options, schemas and hooks
 *   (authenticate, rate limit), then the store's submission; PGlite and PostgreSQL run the service's own code
 *   (src/service/store), SQLite the translation in bench/store-engines-sqlite.ts.
 * - `service`: the real service (createApp) on the engine, to show what the service adds around the route.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import { pathToFileURL } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import Fastify, { type FastifyInstance } from "fastify";
import { type FastifyPluginAsyncZod, serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { jobRequestSchema } from "../src/contract/job.js";
import { IDEMPOTENCY_TTL_MS } from "../src/contract/limits.js";
import { formatTimestamp } from "../src/contract/time.js";
import { isParsedToken, parseToken } from "../src/contract/token.js";
import { bearerToken } from "../src/platform/http/bearer.js";
import { SimulatedBackend } from "../src/routeros/simulator/index.js";
import { createApp, serverOptions } from "../src/service/app.js";
import {
  authenticate,
  type Caller,
  ensureRouter,
  ensureTeam,
  ensureToken,
  hashSecret,
} from "../src/service/auth/directory.js";
import {
  DatabaseRateLimiter,
  MemoryRateLimiter,
  type RateLimiter,
} from "../src/service/auth/rate-limiter.js";
import { resolveConfig } from "../src/service/config.js";
import { type Database, openDatabase } from "../src/service/database/database.js";
import { migrate } from "../src/service/database/migrations.js";
import { initialiseDataDirectory } from "../src/service/database/pglite-init.js";
import { keepWasmAtBaselineTier, PGLITE_MEMORY_SETTINGS } from "../src/service/database/pglite-memory.js";
import { HttpError } from "../src/service/http/http-error.js";
import {
  emittedJobAckSchema,
  idempotencyHeadersSchema,
  routerParamsSchema,
} from "../src/service/http/routes/schemas.js";
import type { JobRow } from "../src/service/jobs/rows.js";
import {
  newJob,
  requestHash,
  type SubmitInput,
  type SubmitResult,
  submitJob,
} from "../src/service/jobs/submit.js";
import { serviceKeyring } from "../src/service/routers/router-secrets.js";
import { SERVICE_MIGRATIONS } from "../src/service/schema.js";
import { applySeed } from "../src/service/seed.js";
import { plainPgliteDatabase } from "./plain-pglite.js";
import { openSqlite } from "./store-engines-sqlite.js";

export const TEAM = "a0000000-0000-4000-8000-000000000001";
export const TOKEN_ID = "aa000000-0000-4000-8000-000000000001";
export const SECRET = `${"A1b2C3d4E5".repeat(6)}xy`;
export const TOKEN = `${TOKEN_ID}:${TEAM}:${SECRET}`;
export const ROUTER = "b0000000-0000-4000-8000-000000000001";
export const SUBMIT_PATH = `/api/asynchronous/${ROUTER}`;
/** Unlimited: the bench measures the limiter's bookkeeping, not its refusals. */
const RATE_LIMIT = { count: 1_000_000_000, windowMs: 1000 };

export type Engine =
  | "memory"
  | "pglite-durable"
  | "pglite-nofsync"
  | "sqlite-full"
  | "sqlite-group"
  | "sqlite-nofsync"
  | "postgres";
type SqliteEngine = Extract<Engine, `sqlite-${string}`>;
const SQLITE_DURABILITY = {
  "sqlite-full": "full",
  "sqlite-group": "group",
  "sqlite-nofsync": "none",
} as const;
export type Kind = "bare" | "route" | "service";

/** What the submission route needs of a store. */
interface SubmissionStore {
  authenticate(token: string): Promise<Caller | undefined>;
  readonly limiter: RateLimiter;
  submit(input: SubmitInput): Promise<SubmitResult>;
  close(): Promise<void>;
}

/**
 * PGlite with the store's settings (memory, planner, pg_trgm, Liftoff only) but as PGlite starts by default:
 * fsync off, commits acknowledged from the page cache. What the store ran on before it was made durable.
 */
async function openPgliteNoFsync(dataDir: string): Promise<Database> {
  keepWasmAtBaselineTier();
  await initialiseDataDirectory(dataDir);
  const db = await PGlite.create({
    dataDir,
    postgresqlconf: [...PGLITE_MEMORY_SETTINGS, "random_page_cost=1.1"],
    extensions: { pg_trgm },
  });
  return plainPgliteDatabase(db);
}

async function openEngineDatabase(engine: Engine, location: string): Promise<Database> {
  if (engine === "pglite-nofsync") return openPgliteNoFsync(location);
  return openDatabase({ location });
}

/** The service's store functions on a PGlite or PostgreSQL database, migrated and seeded as the service does. */
async function postgresSqlStore(engine: Engine, location: string): Promise<SubmissionStore> {
  const db = await openEngineDatabase(engine, location);
  await migrate(db, "service", SERVICE_MIGRATIONS);
  await ensureTeam(db, { id: TEAM });
  await ensureToken(db, TOKEN);
  await ensureRouter(db, { id: ROUTER, teamId: TEAM, name: "edge" });
  return {
    authenticate: (token) => authenticate(db, token),
    // As src/service/http/plugins/rate-limit.ts chooses: in memory for one embedded process, shared in PostgreSQL.
    limiter:
      db.kind === "postgres" ? new DatabaseRateLimiter(db, RATE_LIMIT) : new MemoryRateLimiter(RATE_LIMIT),
    submit: (input) => submitJob(db, input),
    close: () => db.close(),
  };
}

async function sqliteStore(engine: SqliteEngine, path: string): Promise<SubmissionStore> {
  const sqlite = await openSqlite(path, SQLITE_DURABILITY[engine]);
  sqlite.seed({ id: TEAM, tokenId: TOKEN_ID, secret: SECRET, routerId: ROUTER });
  return {
    authenticate: (token) => sqlite.authenticate(token),
    limiter: new MemoryRateLimiter(RATE_LIMIT),
    submit: (input) => sqlite.submit(input),
    close: () => sqlite.close(),
  };
}

/**
 * No database: the token and the jobs in this process's memory, with the JavaScript a store runs around its
 * statements (the secret's hash, the request hash, the job's id and token). The route's own cost, which no
 * engine can go below.
 */
function memoryStore(): SubmissionStore {
  const secretHash = Buffer.from(hashSecret(SECRET), "hex");
  const jobs = new Map<string, JobRow>();
  let nextSeq = 1;
  return {
    authenticate: async (token) => {
      const parsed = parseToken(token);
      if (!isParsedToken(parsed)) return undefined;
      const equal = timingSafeEqual(secretHash, Buffer.from(hashSecret(parsed.secret), "hex"));
      return equal && parsed.tokenId === TOKEN_ID
        ? { tokenId: parsed.tokenId, teamId: parsed.teamId }
        : undefined;
    },
    limiter: new MemoryRateLimiter(RATE_LIMIT),
    submit: async (input) => {
      const job: JobRow = { ...newJob(input, requestHash(input.routerId, input.request)), seq_id: nextSeq++ };
      jobs.set(job.id, job);
      return { kind: "created", job };
    },
    close: async () => {},
  };
}

/**
 * src/service/http/routes/asynchronous with the hooks of src/service/http/plugins/auth.ts and rate-limit.ts, trimmed to
 * the path a valid submission takes (no notify_url check, no scheduler kick: the bench sends neither).
 */
function submissionRoute(store: SubmissionStore): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook("onRequest", async (request) => {
      const token = bearerToken(request.headers.authorization ?? "");
      const caller = token ? await store.authenticate(token) : undefined;
      if (!caller) throw new HttpError("unauthenticated", "the API token is unknown or revoked");
      request.caller = caller;
    });
    app.addHook("onRequest", async (request, reply) => {
      const decision = await store.limiter.take((request.caller as Caller).tokenId, Date.now());
      reply.header("x-ratelimit-limit", decision.limit);
      reply.header("x-ratelimit-remaining", decision.remaining);
      if (!decision.allowed) throw new HttpError("rate_limited", "rate limited");
    });
    app.post(
      "/api/asynchronous/:router_id",
      {
        schema: {
          params: routerParamsSchema,
          body: jobRequestSchema,
          headers: idempotencyHeadersSchema,
          response: { 202: emittedJobAckSchema },
        },
      },
      async (request, reply) => {
        const caller = request.caller as Caller;
        const result = await store.submit({
          teamId: caller.teamId,
          routerId: request.params.router_id,
          request: request.body,
          idempotencyKey:
            request.headers["idempotency-key"] ?? request.headers["x-idempotency-key"] ?? randomUUID(),
          requestId: request.id,
          now: new Date(),
          idempotencyTtlMs: IDEMPOTENCY_TTL_MS,
        });
        if (result.kind !== "created" && result.kind !== "replayed")
          throw new HttpError("not_found", result.kind);
        const { job } = result;
        return reply.code(202).send({
          status: "success",
          data: {
            idempotency_key: job.idempotency_key,
            request_id: job.request_id,
            target: job.router_id,
            notify_url: job.notify_url,
            date: formatTimestamp(job.created_at),
            job_id: job.id,
            seq_id: job.seq_id,
          },
        });
      },
    );
  };
}

async function start(kind: Kind, engine: Engine | undefined, location: string): Promise<FastifyInstance> {
  if (kind === "bare") {
    const app = Fastify();
    app.post("/api/asynchronous/:router_id", async (request, reply) =>
      reply.code(202).send({ status: "success", data: request.body }),
    );
    return app;
  }
  if (!engine) throw new Error(`${kind} needs an engine`);
  if (kind === "route") {
    const store =
      engine === "memory"
        ? memoryStore()
        : engine.startsWith("sqlite")
          ? await sqliteStore(engine as SqliteEngine, location)
          : await postgresSqlStore(engine, location);
    const app = Fastify(serverOptions());
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(submissionRoute(store));
    app.addHook("onClose", () => store.close());
    return app;
  }
  if (engine === "memory" || engine.startsWith("sqlite"))
    throw new Error("the service runs on PGlite or PostgreSQL only");
  const db = await openEngineDatabase(engine, location);
  const config = resolveConfig({ database: location, tickMs: 3_600_000, rateLimit: RATE_LIMIT });
  const app = await createApp({ config, backend: new SimulatedBackend(), db }, { logger: false });
  app.addHook("onClose", () => db.close());
  await app.ready();
  await applySeed(
    app.db,
    { teams: [{ id: TEAM, tokens: [TOKEN], routers: [{ id: ROUTER, name: "edge" }] }] },
    () => serviceKeyring(app.config),
  );
  return app;
}

async function main(): Promise<void> {
  const [kind, engine, location] = process.argv.slice(2) as [Kind, Engine | "-", string];
  const app = await start(kind, engine === "-" ? undefined : engine, location);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  process.once("SIGTERM", () => {
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`closing: ${String(error)}\n`);
        process.exit(1);
      },
    );
  });
}

// The bench imports this module for its constants; only the child process it spawns serves.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
