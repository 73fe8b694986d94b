import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { InteractiveFirst } from "../../scheduling/interactive-first.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Bulk reads of a router's history go after the calls in flight (interactive-first.ts). */
    interactiveFirst: InteractiveFirst;
  }
  interface FastifyContextConfig {
    /**
     * false: the route's requests are no calls and do not hold bulk reads back while in flight
     * (interactive-first.ts): the bulk reads themselves, and the portal's event streams, open as long as a page
     * is. @default true
     */
    interactive?: boolean;
  }
}

/**
 * How long a bulk read's statement waits for the calls in flight at most: a few times what one chunk of a
 * list holds the database's thread, so that under a steady stream of calls a long list is slowed by at most
 * this bound a chunk, never stopped, and a call still waits for one chunk at most (figures:
 * docs/performance.md).
 */
const BULK_READ_MAX_DEFER_MS = 20;

/** Counts every request of an interactive route as a call in flight, from its first hook until it is answered. */
export default fp(
  async function interactiveFirst(app: FastifyInstance) {
    // PostgreSQL runs statements side by side on several connections: nothing need wait there.
    const gate = new InteractiveFirst(app.db.kind === "pglite" ? BULK_READ_MAX_DEFER_MS : 0);
    app.decorate("interactiveFirst", gate);
    app.addHook("onRequest", (request, reply, done) => {
      // 'close': the answer is sent, or the client has gone before it was.
      if (request.routeOptions.config.interactive !== false) reply.raw.once("close", gate.begin());
      done();
    });
  },
  { name: "interactive-first", dependencies: ["database"] },
);
