import Fastify, { type FastifyError, type FastifyInstance } from "fastify";
import { type ErrorCode, errorEnvelope } from "../contract/errors.js";
import { type NotifyRouteOptions, notifyRoute } from "./notify-route.js";
import { type WaitRoutesOptions, waitRoutes } from "./wait-routes.js";

export interface ReceiverAppOptions extends NotifyRouteOptions, WaitRoutesOptions {
  /** PEM certificate and key; the receiver only speaks HTTPS, as `notify_url` must be https. */
  readonly tls: { readonly cert: string; readonly key: string };
  /** @default false */
  readonly logger?: boolean;
}

/** Fastify's own client errors while reading a request, mapped onto the contract's codes. */
const CLIENT_ERROR_CODES: Partial<Record<number, ErrorCode>> = {
  400: "invalid_json",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

export function buildReceiverApp(options: ReceiverAppOptions): FastifyInstance {
  const app = Fastify({
    https: { cert: options.tls.cert, key: options.tls.key },
    logger: options.logger ?? false,
  });

  app.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = error.statusCode ?? 500;
    if (status < 500) {
      const code = CLIENT_ERROR_CODES[status] ?? "invalid_request";
      return reply.code(status).send(errorEnvelope(code, error.message));
    }
    // Storage failed (database down): 503 tells the service to retry later, and nothing was acknowledged.
    app.log.error(error);
    return reply
      .code(503)
      .send(errorEnvelope("service_unavailable", "the receiver could not store or read notifications"));
  });
  // The path is not echoed: under /notify/ it holds a secret.
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorEnvelope("not_found", `no ${request.method} route for this path`)),
  );
  app.get("/healthz", async () => ({ status: "success", data: { ok: true } }));
  app.register(notifyRoute, options);
  app.register(waitRoutes, options);
  return app;
}
