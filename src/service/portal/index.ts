import type { FastifyError, FastifyInstance } from "fastify";
import { HttpError } from "../http/http-error.js";
import { ASSETS } from "./assets.js";
import { authRoutes } from "./auth-routes.js";
import { backupRoute } from "./backup-route.js";
import { eventRoutes } from "./event-routes.js";
import { liveStreams } from "./events.js";
import { pageLimits } from "./limits.js";
import { LIVE_POLL_MS, notFoundPage, pageRoutes } from "./page-routes.js";
import { messagePage } from "./pages/layout.js";
import { SECURITY_HEADERS } from "./security-headers.js";

export { mintSignInCode } from "./sessions.js";

/** A sign-in or sign-out form is a few hundred bytes; anything much larger is not ours. */
const FORM_MAX_BYTES = 8192;

/**
 * The read-only web portal at /portal (docs/portal.md): server-rendered pages over the same database, a
 * session cookie instead of a bearer token, HTML errors instead of the API's JSON envelope. Encapsulated, so
 * its form parser, headers and error pages stay out of the API.
 */
export default async function portal(app: FastifyInstance): Promise<void> {
  app.decorate("portalPageLimits", pageLimits(app));
  const live = liveStreams(app, LIVE_POLL_MS);
  // Open streams would hold the server open: end them before it closes.
  app.addHook("preClose", async () => live.endAll());

  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: FORM_MAX_BYTES },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.addHook("onRequest", async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
    // Pages are private and change while jobs run: never cached. Assets override this below.
    reply.header("cache-control", "no-store");
  });

  for (const asset of ASSETS) {
    app.get(asset.path.replace(/^\/portal/, ""), async (request, reply) => {
      reply.header("cache-control", "public, max-age=31536000, immutable").header("etag", asset.etag);
      if (request.headers["if-none-match"] === asset.etag) return reply.code(304).send();
      return reply.type(asset.contentType).send(asset.body);
    });
  }
  authRoutes(app, live);
  pageRoutes(app);
  eventRoutes(app, live);
  backupRoute(app);

  app.setNotFoundHandler(async (_request, reply) => notFoundPage(reply));
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 429) {
      const retry = String(
        reply.getHeader("retry-after") ??
          (error as { headers?: Record<string, string> }).headers?.["retry-after"] ??
          "60",
      );
      reply.header("retry-after", retry);
      // The portal's limits (limits.ts) name themselves and the wait; a message from elsewhere is not shown.
      const text = error instanceof HttpError ? error.message : `too many requests; try again in ${retry} s`;
      const page = messagePage("Too many requests", `${text[0]?.toUpperCase()}${text.slice(1)}.`);
      return reply.code(429).type("text/html; charset=utf-8").send(page.text);
    }
    if (status >= 400 && status < 500) {
      const page = messagePage(
        "Bad request",
        "The portal could not use that request. Follow a link from its pages.",
      );
      return reply
        .code(status === 413 ? 413 : 400)
        .type("text/html; charset=utf-8")
        .send(page.text);
    }
    request.log.error({ err: error }, "portal page failed");
    const page = messagePage("Something went wrong", `The page could not be shown (request ${request.id}).`);
    return reply.code(500).type("text/html; charset=utf-8").send(page.text);
  });
}
