import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import Fastify, {
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
} from "fastify";
import fp from "fastify-plugin";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { errorEnvelope } from "../contract/errors.js";
import { BODY_MAX_BYTES } from "../contract/limits.js";
import type { RouterBackend } from "../contract/routers/router-backend.js";
import type { ServiceConfig } from "./config.js";
import type { Database } from "./database/database.js";
import auth from "./http/plugins/auth.js";
import config from "./http/plugins/config.js";
import database from "./http/plugins/database.js";
import errors, { notFound } from "./http/plugins/errors.js";
import interactiveFirst from "./http/plugins/interactive-first.js";
import jsonBody from "./http/plugins/json-body.js";
import rateLimit from "./http/plugins/rate-limit.js";
import jobs from "./http/plugins/scheduler.js";
import admin from "./http/routes/admin/index.js";
import asynchronous from "./http/routes/asynchronous/index.js";
import health from "./http/routes/health/index.js";
import jobList from "./http/routes/jobs/index.js";
import routerList from "./http/routes/routers/index.js";
import sites from "./http/routes/sites/index.js";
import synchronous from "./http/routes/synchronous/index.js";
import portal from "./portal/index.js";

/** One year, this host only: the names a service answers to have subdomains that are not its own. */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000";

export interface AppOptions {
  readonly config: ServiceConfig;
  readonly backend: RouterBackend;
  /** A database the caller opened and closes; otherwise the app opens `config.database`. */
  readonly db?: Database;
  /** Milliseconds since the epoch, for the rate limit's windows; a test moves it instead of sleeping. @default Date.now */
  readonly rateLimitClock?: () => number;
}

/**
 * The service as a Fastify plugin: infrastructure plugins, then one plugin per route folder. Not encapsulated,
 * so an embedding (and a test) reaches `db`, `scheduler` and the other decorators.
 */
async function serviceApp(app: FastifyInstance, options: AppOptions): Promise<void> {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Only JSON bodies: without its parser, text/plain is refused with 415 like any other type.
  app.removeContentTypeParser("text/plain");
  await app.register(jsonBody);

  // Over HTTPS, browsers are told to use nothing else for a year (the portal's cookies are Secure already):
  // a first visit typed as http:// cannot be downgraded afterwards. Never over plain HTTP (RFC 6797 8.1).
  app.addHook("onRequest", async (request, reply) => {
    if (request.protocol === "https") reply.header("strict-transport-security", STRICT_TRANSPORT_SECURITY);
  });
  await app.register(errors);
  await app.register(config, { config: options.config });
  await app.register(database, options.db ? { db: options.db } : {});
  await app.register(interactiveFirst);
  await app.register(auth);
  await app.register(rateLimit, options.rateLimitClock ? { clock: options.rateLimitClock } : {});
  await app.register(jobs, { backend: options.backend });

  await app.register(health);
  await app.register(
    async (api) => {
      api.addHook("onRequest", api.authenticate);
      api.addHook("onRequest", api.rateLimit);
      // Its own 404 handler runs the hooks above: an unknown /api path is authenticated and counted like any
      // other request, and its answer carries the rate-limit headers.
      api.setNotFoundHandler(notFound);
      await api.register(synchronous);
      await api.register(asynchronous);
      await api.register(jobList);
      await api.register(routerList);
    },
    { prefix: "/api" },
  );
  // The sites API (sdx profile) over the same data, with its own scopes (/sites, /site) and the same hooks.
  await app.register(sites);
  if (options.config.adminToken) await app.register(admin, { prefix: "/admin" });
  if (options.config.portal) await app.register(portal, { prefix: "/portal" });
}

export default fp(serviceApp, { name: "routerjobs-service" });

/** Fastify settings the contract depends on (body limit, request ids); `server.ts` adds TLS and timeouts. */
export function serverOptions(): FastifyServerOptions {
  return {
    bodyLimit: BODY_MAX_BYTES,
    // Opening PGlite and migrating can take seconds on a busy machine; the default 10 s is too tight.
    pluginTimeout: 120_000,
    genReqId: () => randomUUID(),
    // The id is ours: a client-chosen x-request-id could collide with another request's.
    requestIdHeader: false,
    // A URL that cannot be routed (bad percent-encoding) is bad input, answered in the contract's envelope.
    frameworkErrors: (error, request, reply) => {
      (reply as unknown as FastifyReply)
        .code(404)
        .header("x-request-id", request.id)
        .send(errorEnvelope("not_found", `the URL cannot be routed: ${error.message}`));
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  };
}

/** Builds the app for `inject` tests and embedding; call `ready()` (or `listen`) to start its workers. */
export async function createApp(
  options: AppOptions,
  fastify: FastifyHttpOptions<Server> = {},
): Promise<FastifyInstance> {
  const app = Fastify({ ...serverOptions(), ...fastify });
  await app.register(fp(serviceApp), options);
  return app;
}
