import type { FastifyInstance, FastifyReply } from "fastify";
import type { LiveStreams } from "./events.js";
import { jobFingerprint, routerFingerprint, routersFingerprint } from "./fingerprints.js";
import { isUuid, notFoundPage, single } from "./page-routes.js";
import { portalJob, portalRouter } from "./queries.js";
import { signedIn } from "./session-guard.js";

/** 401 rather than a redirect: an EventSource that gets it stops reconnecting. */
const signedOut = (reply: FastifyReply) =>
  reply.code(401).type("text/plain; charset=utf-8").send("signed out");

/**
 * The event streams of the three live pages, each page's `data-events` URL: the routers list, a router's log
 * and a job. Scoped like the pages: another team's router or job is the same 404 as none.
 */
export function eventRoutes(app: FastifyInstance, live: LiveStreams): void {
  const since = (query: unknown) => single((query as Record<string, unknown>).since);
  // Open as long as a page is: no call in flight, which would hold every job list back (interactive-first.ts).
  const stream = { config: { interactive: false } };

  app.get("/events", stream, async (request, reply) => {
    const current = await signedIn(app, request);
    if (!current) return signedOut(reply);
    const teamId = current.session.teamId;
    live.open(reply, current.session, () => routersFingerprint(app.db, teamId), since(request.query));
  });

  app.get("/routers/:routerId/events", stream, async (request, reply) => {
    const current = await signedIn(app, request);
    if (!current) return signedOut(reply);
    const { routerId } = request.params as { routerId: string };
    const router = isUuid(routerId)
      ? await portalRouter(app.db, current.session.teamId, routerId)
      : undefined;
    if (!router) return notFoundPage(reply, current.chrome);
    live.open(reply, current.session, () => routerFingerprint(app.db, router.id), since(request.query));
  });

  app.get("/jobs/:jobId/events", stream, async (request, reply) => {
    const current = await signedIn(app, request);
    if (!current) return signedOut(reply);
    const { jobId } = request.params as { jobId: string };
    const job = isUuid(jobId) ? await portalJob(app.db, current.session.teamId, jobId) : undefined;
    if (!job) return notFoundPage(reply, current.chrome);
    live.open(
      reply,
      current.session,
      () => jobFingerprint(app.db, job.id, job.router_id),
      since(request.query),
    );
  });
}
