import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, type Dispatcher, request } from "undici";
import { RouterJobsClient } from "../../src/client/client.js";
import type { RouterBackend } from "../../src/contract/routers/router-backend.js";
import { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { resolveConfig, type ServiceConfigInput } from "../../src/service/config.js";
import type { Queryable } from "../../src/service/database/database.js";
import { fromJsonb } from "../../src/service/database/jsonb.js";
import { applySeed } from "../../src/service/seed.js";
import { type RunningService, type StartOptions, startService } from "../../src/service/server.js";
import { waitFor } from "../helpers/wait-for.js";
import { newBackend } from "./backend.js";

export const TEAM_A = "a0000000-0000-4000-8000-000000000001";
export const TEAM_B = "b0000000-0000-4000-8000-000000000002";
export const CUSTOMER_A = "c0000000-0000-4000-8000-00000000000a";
export const ROUTER_A = "a1000000-0000-4000-8000-000000000001";
export const ROUTER_A2 = "a2000000-0000-4000-8000-000000000002";
export const ROUTER_B = "b1000000-0000-4000-8000-000000000001";
export const TOKEN_A = `aa000000-0000-4000-8000-000000000001:${TEAM_A}:${"A1b2C3d4E5".repeat(6)}xy`;
export const TOKEN_A2 = `aa000000-0000-4000-8000-000000000002:${TEAM_A}:${"Z9y8X7w6V5".repeat(6)}qq`;
export const TOKEN_B = `bb000000-0000-4000-8000-000000000001:${TEAM_B}:${"Q1w2E3r4T5".repeat(6)}zz`;
export const SIGNING_SECRET = `whsec_${Buffer.from("a signing secret of team B!").toString("base64")}`;

/** Team A's name, which the portal shows instead of its id; team B has none. */
export const TEAM_A_NAME = "Acme Networks";
export const ADMIN_TOKEN = "test-admin-token-0123456789";
/** Loopback, for `notifyAllow` / `--notify-allow`: where the tests' receivers listen. */
export const LOOPBACK = ["127.0.0.0/8", "::1"];

export const SEED = {
  teams: [
    {
      id: TEAM_A,
      name: TEAM_A_NAME,
      customer_id: CUSTOMER_A,
      tokens: [TOKEN_A, TOKEN_A2],
      routers: [
        { id: ROUTER_A, name: "edge-a" },
        { id: ROUTER_A2, name: "edge-a2" },
      ],
    },
    {
      id: TEAM_B,
      signing_secret: SIGNING_SECRET,
      tokens: [TOKEN_B],
      routers: [{ id: ROUTER_B, name: "edge-b" }],
    },
  ],
};

/** SEED without the teams' names: for a database migrated only up to a version before teams had names. */
export const SEED_BEFORE_TEAM_NAMES = {
  ...SEED,
  teams: SEED.teams.map(({ name: _name, ...team }: { name?: string }) => team),
};

/** A response body as tests read it: each test asserts the shape it relies on. */
// biome-ignore lint/suspicious/noExplicitAny: the tests themselves assert what they read
export type Loose = any;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Loose;
}

export interface TestService {
  readonly service: RunningService;
  readonly backend: RouterBackend;
  readonly url: string;
  call(
    method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH",
    path: string,
    options?: { token?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<Answer>;
  submit(
    routerId: string,
    job: Record<string, unknown>,
    token?: string,
    headers?: Record<string, string>,
  ): Promise<Answer>;
  jobs(routerId: string, token?: string): Promise<Loose[]>;
  close(): Promise<void>;
}

/** The service's CA certificate written to `dir/<name>`, for a CLI process's ROUTERJOBS_CA_FILE: its path. */
export function writeServiceCa(svc: TestService, dir: string, name = "service-ca.pem"): string {
  const file = join(dir, name);
  writeFileSync(file, svc.service.ca ?? "");
  return file;
}

/** The service listening on loopback with real TLS, seeded with two teams. */
export async function startTestService(
  config: Partial<ServiceConfigInput> = {},
  backend: RouterBackend = newBackend(),
  server: Partial<Pick<StartOptions, "tls" | "timeouts" | "logger" | "rateLimitClock" | "port">> = {},
): Promise<TestService> {
  const service = await startService({
    config: resolveConfig({
      database: "memory://",
      tickMs: 50,
      notifyRetryBaseMs: 50,
      adminToken: ADMIN_TOKEN,
      // The tests' notification sinks and receivers listen on loopback, which a service refuses by default.
      notifyAllow: LOOPBACK,
      // Tests poll the API while they wait (`eventually`, every 25 ms): at the spec's 60 a minute, a wait of
      // over 1.5 s on a loaded machine met a 429 instead of the state it waited for (shutdown.test.ts in a
      // flake hunt). The tests of the limit set theirs.
      rateLimit: { count: 10_000, windowMs: 1000 },
      ...config,
    }),
    backend,
    host: "127.0.0.1",
    port: 0,
    tls: "generate",
    logger: false,
    ...server,
  });
  await applySeed(service.app.db, SEED as never);
  const dispatcher = new Agent(service.ca ? { connect: { ca: service.ca } } : {});
  const call = apiCaller(service.url, dispatcher);
  return {
    service,
    backend,
    url: service.url,
    call,
    submit: (routerId, job, token = TOKEN_A, headers = {}) =>
      call("POST", `/api/asynchronous/${routerId}`, { token, body: job, headers }),
    jobs: async (routerId, token = TOKEN_A) => {
      const listed = await call("GET", `/api/routers/${routerId}/jobs`, { token });
      // A list that was not given says why, instead of failing later on `undefined`.
      if (listed.status !== 200)
        throw new Error(`GET the jobs of ${routerId}: HTTP ${listed.status} ${JSON.stringify(listed.body)}`);
      return listed.body.data;
    },
    close: async () => {
      await service.close();
      await dispatcher.close();
    },
  };
}

/** Calls a service at `url` as a client of team A does, unless `token` says otherwise (null: no header). */
export function apiCaller(url: string, dispatcher: Dispatcher): TestService["call"] {
  return async (method, path, options = {}) => {
    const token = options.token === undefined ? TOKEN_A : options.token;
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const response = await request(`${url}${path}`, {
      method,
      dispatcher,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...options.headers,
      },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.body.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the test sees the text
    }
    return { status: response.statusCode, headers: response.headers, body: parsed };
  };
}

/**
 * Polls until `check` returns a value (not undefined) or fails after `timeoutMs` (the suite's condition deadline
 * when not given), naming `what` it awaited.
 */
export function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs?: number,
  what = "the condition",
): Promise<T> {
  return waitFor(check, { what, timeoutMs });
}

/**
 * Resolves once the scheduler has worked `routerId`'s queue in a pass that began after this call: the positive
 * signal that it had its chance to run (or not run) what is queued now, instead of a sleep. The scheduler
 * looks only at routers with queued jobs: with none left (say, the job was run after all) this times out.
 */
export async function schedulerLookedAt(svc: TestService, routerId: string): Promise<void> {
  const { scheduler } = svc.service.app;
  const from = scheduler.queuePasses(routerId);
  await waitFor(() => scheduler.queuePasses(routerId) >= from + 2, {
    what: `the scheduler to look at router ${routerId} again`,
    detail: () =>
      `${scheduler.queuePasses(routerId) - from} pass(es) since; it looks only at routers with queued jobs`,
  });
}

/**
 * The statuses of the job's notifications, in order, once the outbox has delivered every one: everything the
 * service will send for the job as it stands, so a test can say which notifications there were *not*.
 */
export function deliveredNotifications(svc: TestService, jobId: string): Promise<string[]> {
  return waitFor(
    async () => {
      const { rows } = await svc.service.app.db.query<{ status: string; delivered: boolean }>(
        "SELECT payload->>'status' AS status, delivered_at IS NOT NULL AS delivered FROM outbox WHERE job_id = $1 ORDER BY seq",
        [jobId],
      );
      return rows.every((row) => row.delivered) ? rows.map((row) => row.status) : undefined;
    },
    { what: `the outbox to deliver every notification of job ${jobId}` },
  );
}

/** A client of the test service as apply builds one, its rate budget in `budgetDir` and out of the way. */
/** A client of the test service under `token`, on the spec's API or, with `api: "sdx"`, on its sites API. */
export function clientOf(
  service: TestService,
  budgetDir: string,
  token = TOKEN_A,
  api: "spec" | "sdx" = "spec",
): RouterJobsClient {
  return new RouterJobsClient({
    baseUrl: service.url,
    token,
    ca: service.service.ca,
    ...(api === "sdx" ? { api } : {}),
    budgetDir,
    rateLimit: { count: 1000, windowMs: 1000 },
  });
}

/**
 * The router's identity as its saved state holds it: the state read from the database and attached to a fresh
 * simulated router, as a restart or another instance would.
 */
export async function savedIdentity(db: Queryable, routerId: string): Promise<unknown> {
  const { rows } = await db.query<{ state: unknown }>("SELECT state FROM routers WHERE id = $1", [routerId]);
  const restored = new SimulatedBackend();
  await restored.attach(routerId, { name: "restored", state: fromJsonb(rows[0]?.state) });
  return (await restored.command(routerId, "/system/identity/print"))[0]?.name;
}

/**
 * A router's long history written straight into the table, as years of jobs would be (and unseen by any count
 * the service keeps): `count` completed jobs "deploy 1" to "deploy <count>", seq 1 to `count`, and the router's
 * next seq after them.
 */
export async function writeHistory(
  db: Queryable,
  routerId: string,
  teamId: string,
  count: number,
): Promise<void> {
  await db.query(
    `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
       description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at)
     SELECT gen_random_uuid(), $1, $2, n, 't' || n, gen_random_uuid(), gen_random_uuid(), 'h', 'deploy ' || n,
       '/log info x', false, false, true, 'completed', 'done', now()
     FROM generate_series(1, $3::int) AS n`,
    [routerId, teamId, count],
  );
  await db.query("UPDATE routers SET next_seq = $2 WHERE id = $1", [routerId, count + 1]);
}
