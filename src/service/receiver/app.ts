import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import { type ErrorCode, errorEnvelope } from "../../contract/errors.js";
import { type LoggerOptions, serverLogger } from "../../platform/http/server-logging.js";
import {
  DEFAULT_SERVER_TIMEOUTS,
  fastifyTimeouts,
  type ServerTimeouts,
} from "../../platform/http/server-timeouts.js";
import {
  isStorageFull,
  STORAGE_FULL_RETRY_AFTER_S,
  type StorageFullReport,
} from "../database/storage-full.js";
import { type NotifyRouteOptions, notifyRoute } from "./notify-route.js";
import { MAX_WAIT_MS, type WaitRoutesOptions, waitRoutes } from "./wait-routes.js";

export interface ReceiverAppOptions extends NotifyRouteOptions, WaitRoutesOptions {
  /** PEM certificate and key; the receiver only speaks HTTPS, as `notify_url` must be https. */
  readonly tls: { readonly cert: string; readonly key: string };
  /** pino options (level, stream), true for info on stdout. @default false */
  readonly logger?: boolean | LoggerOptions;
  /** Socket deadlines; the defaults suit production, tests shrink them. */
  readonly timeouts?: Partial<ServerTimeouts>;
  /** Writes refused for lack of space lately: `/healthz` answers 503 while it says so. */
  readonly storageFull?: StorageFullReport;
}

/** A long poll holds its answer back for up to MAX_WAIT_MS: an idle socket must outlive that. */
const RECEIVER_TIMEOUTS: ServerTimeouts = {
  ...DEFAULT_SERVER_TIMEOUTS,
  connectionTimeoutMs: MAX_WAIT_MS + 30_000,
};

/** Fastify's own client errors while reading a request, mapped onto the contract's codes. */
const CLIENT_ERROR_CODES: Partial<Record<number, ErrorCode>> = {
  400: "invalid_json",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

export function buildReceiverApp(options: ReceiverAppOptions): FastifyInstance {
  const { server, ...timeouts } = fastifyTimeouts({ ...RECEIVER_TIMEOUTS, ...options.timeouts });
  const app = Fastify({
    ...timeouts,
    https: { ...server, cert: options.tls.cert, key: options.tls.key },
    // A notify path holds a secret, right or nearly right: requests are logged by route pattern, never by URL.
    logger: serverLogger(options.logger ?? false, (request) => request.routeOptions?.url ?? "(no route)"),
    // An unroutable URL (a 5,000-character or badly encoded secret) gets the envelope, without echoing the path.
    frameworkErrors: (_error, _request, reply) => {
      (reply as unknown as FastifyReply)
        .code(404)
        .send(errorEnvelope("not_found", "the URL cannot be routed"));
    },
  });

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = error.statusCode ?? 500;
    if (status < 500) {
      const code = CLIENT_ERROR_CODES[status] ?? "invalid_request";
      return reply.code(status).send(errorEnvelope(code, error.message));
    }
    // Storage failed (database down, disk full): 503 tells the service to retry later, and nothing was
    // acknowledged.
    app.log.error(error);
    const full = isStorageFull(error);
    if (full) reply.header("retry-after", String(STORAGE_FULL_RETRY_AFTER_S));
    return reply
      .code(503)
      .send(
        errorEnvelope(
          "service_unavailable",
          full
            ? "the receiver's storage is full: the notification was not stored; retry later"
            : "the receiver could not store or read notifications",
        ),
      );
  });
  // The path is not echoed: under /notify/ it holds a secret.
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorEnvelope("not_found", `no ${request.method} route for this path`)),
  );
  app.get("/healthz", async (_request, reply) => {
    const storageFull = options.storageFull?.current();
    if (storageFull === undefined) return { status: "success", data: { ok: true } };
    return reply.code(503).send(errorEnvelope("service_unavailable", storageFull));
  });
  app.register(notifyRoute, options);
  app.register(waitRoutes, options);
  return app;
}
