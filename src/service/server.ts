import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { generateLocalTls, loadOrCreateLocalTls, type TlsMaterial } from "../tls/certificates.js";
import { createApp } from "./app.js";
import type { ServiceConfig } from "./config.js";
import type { RouterBackend } from "./routers/backend.js";
import { applySeed, type Seed } from "./seed.js";

export interface StartOptions {
  readonly config: ServiceConfig;
  readonly backend: RouterBackend;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** PEM files given by the operator, or a local CA generated (and kept) in the data directory. */
  readonly tls?: { readonly cert: string; readonly key: string } | "generate";
  /** pino options, or false for silence (tests). @default info to stdout */
  readonly logger?: boolean | { level: string; stream?: NodeJS.WritableStream };
  /** Applied (idempotently) before the service accepts requests. */
  readonly seed?: Seed;
  /** Socket timeouts; the defaults suit production, tests shrink them. */
  readonly timeouts?: Partial<Timeouts>;
}

export interface Timeouts {
  /** The whole request (headers and body) must arrive within this. @default 30 s */
  readonly requestTimeoutMs: number;
  /** The request headers must arrive within this. @default 10 s */
  readonly headersTimeoutMs: number;
  /** An idle socket is closed after this. @default 60 s */
  readonly connectionTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. @default 5 s */
  readonly keepAliveTimeoutMs: number;
}

export interface RunningService {
  readonly app: FastifyInstance;
  /** `https://127.0.0.1:PORT` or `http://...`. */
  readonly url: string;
  /** The CA a client must trust when the service generated its certificate. */
  readonly caFile?: string;
  readonly ca?: string;
  /** Where the admin token was written. */
  readonly adminTokenFile?: string;
  close(): Promise<void>;
}

/** Timeouts that make slow or idle clients (slowloris) lose their socket instead of holding it. */
const DEFAULT_TIMEOUTS: Timeouts = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  connectionTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
};

/** Starts the service: TLS, logging, timeouts, admin token; the app itself is `app.ts`. */
export async function startService(options: StartOptions): Promise<RunningService> {
  const { dataDir } = options.config;
  let adminToken = options.config.adminToken;
  let adminTokenFile: string | undefined;
  if (dataDir && !adminToken) {
    await mkdir(dataDir, { recursive: true });
    adminToken = randomBytes(32).toString("base64url");
    adminTokenFile = join(dataDir, "admin-token");
    await writeFile(adminTokenFile, `${adminToken}\n`, { mode: 0o600 });
  }
  const generated: (TlsMaterial & { caFile?: string }) | undefined =
    options.tls === "generate"
      ? await (dataDir ? loadOrCreateLocalTls(dataDir) : generateLocalTls())
      : undefined;
  const tls = generated ?? (typeof options.tls === "object" ? options.tls : undefined);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  // Node checks request and header deadlines on this period (default 30 s, far longer than the deadlines).
  const serverOptions = {
    headersTimeout: timeouts.headersTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs),
  };
  const app = await createApp(
    { config: { ...options.config, ...(adminToken ? { adminToken } : {}) }, backend: options.backend },
    {
      requestTimeout: timeouts.requestTimeoutMs,
      connectionTimeout: timeouts.connectionTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      logger: options.logger ?? { level: "info" },
      ...(tls ? { https: { ...serverOptions, cert: tls.cert, key: tls.key } } : { http: serverOptions }),
    } as Parameters<typeof createApp>[1],
  );
  await app.ready();
  if (options.seed) await applySeed(app.db, options.seed);
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    app,
    url: `${tls ? "https" : "http"}://${host}:${port}`,
    ...(generated ? { ca: generated.ca } : {}),
    ...(generated?.caFile ? { caFile: generated.caFile } : {}),
    ...(adminTokenFile ? { adminTokenFile } : {}),
    close: () => app.close(),
  };
}

/**
 * SIGTERM/SIGINT close the service gracefully (jobs in flight finish). The handlers are `once`: a second signal
 * meets Node's default action and ends the process at once.
 */
export function closeOnSignals(service: RunningService, onClosed: () => void): void {
  const handler = (signal: NodeJS.Signals) => {
    service.app.log.info({ signal }, "shutting down");
    service.close().then(onClosed, (error) => {
      service.app.log.error({ err: error }, "shutdown failed");
      onClosed();
    });
  };
  process.once("SIGTERM", handler);
  process.once("SIGINT", handler);
}
