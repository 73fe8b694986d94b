import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import type { RouterBackend } from "../contract/routers/router-backend.js";
import {
  type LoggedRequest,
  type LoggerOptions,
  redactedUrl,
  serverLogger,
} from "../platform/http/server-logging.js";
import {
  DEFAULT_SERVER_TIMEOUTS,
  fastifyTimeouts,
  type ServerTimeouts,
} from "../platform/http/server-timeouts.js";
import {
  certificateHosts,
  generateLocalTls,
  loadOrCreateLocalTls,
  type TlsMaterial,
} from "../platform/tls/certificates.js";
import { createApp } from "./app.js";
import type { ServiceConfig } from "./config.js";
import { serviceKeyring } from "./routers/router-secrets.js";
import { applySeed, type Seed } from "./seed.js";

/**
 * The request log's URL: credentials redacted (`redactedUrl`), and so is a one-time sign-in link's code, which
 * signs in whoever posts it first.
 */
const loggedUrl = (request: LoggedRequest): string =>
  redactedUrl(request.url).replace(/^(\/portal\/sign-in\/code\/)[^?#]+/, "$1***");

export interface StartOptions {
  readonly config: ServiceConfig;
  readonly backend: RouterBackend;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** PEM files given by the operator, or a local CA generated (and kept) in the data directory. */
  readonly tls?: { readonly cert: string; readonly key: string } | "generate";
  /** pino options, or false for silence (tests). @default info to stdout */
  readonly logger?: boolean | LoggerOptions;
  /** Applied (idempotently) before the service accepts requests. */
  readonly seed?: Seed;
  /** Socket timeouts; the defaults suit production, tests shrink them. */
  readonly timeouts?: Partial<ServerTimeouts>;
  /** The rate limit's clock (see AppOptions); tests only. @default Date.now */
  readonly rateLimitClock?: () => number;
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

/** Starts the service: TLS, logging, timeouts, admin token; the app itself is `app.ts`. */
export async function startService(options: StartOptions): Promise<RunningService> {
  const { dataDir } = options.config;
  let adminToken = options.config.adminToken;
  let adminTokenFile: string | undefined;
  if (dataDir && !adminToken) {
    await mkdir(dataDir, { recursive: true });
    adminToken = randomBytes(32).toString("base64url");
    adminTokenFile = join(dataDir, "admin-token");
  }
  const generated: (TlsMaterial & { caFile?: string }) | undefined =
    options.tls === "generate"
      ? await (dataDir
          ? loadOrCreateLocalTls(dataDir, certificateHosts(options.host))
          : generateLocalTls(certificateHosts(options.host)))
      : undefined;
  const tls = generated ?? (typeof options.tls === "object" ? options.tls : undefined);
  const { server, ...timeouts } = fastifyTimeouts({ ...DEFAULT_SERVER_TIMEOUTS, ...options.timeouts });
  const app = await createApp(
    {
      config: { ...options.config, ...(adminToken ? { adminToken } : {}) },
      backend: options.backend,
      ...(options.rateLimitClock ? { rateLimitClock: options.rateLimitClock } : {}),
    },
    {
      ...timeouts,
      logger: serverLogger(options.logger ?? { level: "info" }, loggedUrl),
      ...(tls ? { https: { ...server, cert: tls.cert, key: tls.key } } : { http: server }),
    } as Parameters<typeof createApp>[1],
  );
  await app.ready();
  try {
    // Written once the database is open (and its directory locked): a second service refused on the same data
    // directory must not replace the token of the one running.
    if (adminTokenFile) await writeFile(adminTokenFile, `${adminToken}\n`, { mode: 0o600 });
    if (options.seed) await applySeed(app.db, options.seed, () => serviceKeyring(app.config));
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    // Closing releases the data directory at once rather than leaving its lock to go stale.
    await app.close();
    throw error;
  }
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
 * SIGTERM/SIGINT close the service gracefully: no new requests, running scripts finish within the shutdown grace
 * period (`shutdownGraceMs`; then they are aborted and their jobs fail), then the database closes. The handlers
 * are `once`: a second signal meets Node's default action and ends the process at once.
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
