import type { FastifyInstance, FastifyReply } from "fastify";
import { UUID_PATTERN } from "../../contract/ids.js";
import { HttpError } from "../http/http-error.js";
import { InvalidCursorError, isKnownStatus, JOB_TEXT_FILTER_MAX, jobPage } from "../jobs/job-page.js";
import { sendSignInForm } from "./auth-routes.js";
import { deployJobs, groupDeploys } from "./deploys.js";
import { jobFingerprint, routersFingerprint } from "./fingerprints.js";
import { deployPage, deploysPage } from "./pages/deploys.js";
import { jobPage as jobView } from "./pages/job.js";
import { messagePage } from "./pages/layout.js";
import { routerLogPage } from "./pages/router-log.js";
import { routersPage } from "./pages/routers.js";
import { deliveries, portalJob, portalRouter, routerSummaries } from "./queries.js";
import { type SignedIn, signedIn, toSignIn } from "./session-guard.js";

export const LOG_PAGE_SIZE = 50;
/** How often an open page's stream looks at the database. */
export const LIVE_POLL_MS = 1000;

const sendPage = (reply: FastifyReply, page: { text: string }, status = 200) =>
  reply.code(status).type("text/html; charset=utf-8").send(page.text);

/** Another team's router or job, and one that does not exist, get this same page. */
export const notFoundPage = (reply: FastifyReply, chrome?: SignedIn["chrome"]) =>
  sendPage(
    reply,
    messagePage("Not found", "There is no such page, router or job in your view.", chrome),
    404,
  );

/** A query value as one string: a repeated parameter or a missing one is treated as absent. */
export const single = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

export function pageRoutes(app: FastifyInstance): void {
  app.get("/", async (request, reply) => {
    const current = await signedIn(app, request);
    if (!current) return sendSignInForm(reply);
    const now = new Date();
    // Read before the rows, as on the other live pages: a change in between refreshes once more.
    const fingerprint = await routersFingerprint(app.db, current.session.teamId);
    const routers = await routerSummaries(app.db, current.session.teamId, now);
    return sendPage(
      reply,
      routersPage(routers, {
        session: current.chrome,
        allTeams: current.session.teamId === null,
        now,
        fingerprint,
      }),
    );
  });

  // Deploys are grouped from the team's marked jobs when asked (deploys.ts): nothing is stored for them. Both
  // pages follow the routers list's stream, which moves with every job of the team.
  const deploys = async (teamId: string | null, now: Date) => {
    const fingerprint = await routersFingerprint(app.db, teamId);
    return { fingerprint, deploys: groupDeploys(await deployJobs(app.db, teamId, now)) };
  };

  app.get("/deploys", async (request, reply) => {
    const current = await signedIn(app, request);
    if (!current) return toSignIn(reply);
    const now = new Date();
    const read = await deploys(current.session.teamId, now);
    return sendPage(
      reply,
      deploysPage(read.deploys, {
        session: current.chrome,
        allTeams: current.session.teamId === null,
        now,
        fingerprint: read.fingerprint,
      }),
    );
  });

  app.get("/deploys/:deployId", async (request, reply) => {
    const current = await signedIn(app, request);
    if (!current) return toSignIn(reply);
    const { deployId } = request.params as { deployId: string };
    const now = new Date();
    const read = isUuid(deployId) ? await deploys(current.session.teamId, now) : undefined;
    const deploy = read?.deploys.find((found) => found.id === deployId);
    if (!read || !deploy) return notFoundPage(reply, current.chrome);
    return sendPage(
      reply,
      deployPage(deploy, {
        session: current.chrome,
        allTeams: current.session.teamId === null,
        now,
        fingerprint: read.fingerprint,
      }),
    );
  });

  app.get("/routers/:routerId", async (request, reply) => {
    const current = await signedIn(app, request);
    if (!current) return toSignIn(reply);
    const { routerId } = request.params as { routerId: string };
    const router = isUuid(routerId)
      ? await portalRouter(app.db, current.session.teamId, routerId)
      : undefined;
    if (!router) return notFoundPage(reply, current.chrome);
    const query = request.query as Record<string, unknown>;
    const status = single(query.status);
    const text = single(query.q)?.slice(0, JOB_TEXT_FILTER_MAX);
    const cursor = single(query.cursor);
    if (status !== undefined && !isKnownStatus(status)) {
      throw new HttpError("invalid_request", "status must be one of the job states", [
        { field: "status", message: "is not a job state" },
      ]);
    }
    // Read with the router, before the jobs: a change in between makes the page refresh once more.
    const { fingerprint } = router;
    let page: Awaited<ReturnType<typeof jobPage>>;
    try {
      page = await jobPage(app.db, {
        teamId: current.session.teamId,
        routerId: router.id,
        limit: LOG_PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
        ...(status ? { statuses: [status] } : {}),
        ...(text ? { text } : {}),
      });
    } catch (error) {
      if (!(error instanceof InvalidCursorError)) throw error;
      throw new HttpError("invalid_request", "that page link is not valid", [
        { field: "cursor", message: "is not one this service handed out" },
      ]);
    }
    return sendPage(
      reply,
      routerLogPage({
        router,
        jobs: page.jobs,
        nextCursor: page.nextCursor,
        filters: { ...(status ? { status } : {}), ...(text ? { text } : {}) },
        firstPage: cursor === undefined,
        session: current.chrome,
        now: new Date(),
        fingerprint,
      }),
    );
  });

  app.get("/jobs/:jobId", async (request, reply) => {
    const current = await signedIn(app, request);
    if (!current) return toSignIn(reply);
    const { jobId } = request.params as { jobId: string };
    const found = isUuid(jobId) ? await portalJob(app.db, current.session.teamId, jobId) : undefined;
    if (!found) return notFoundPage(reply, current.chrome);
    // The fingerprint before what the page shows (the job read again after it), as on the router page.
    const fingerprint = await jobFingerprint(app.db, found.id, found.router_id);
    const job = (await portalJob(app.db, current.session.teamId, jobId)) ?? found;
    return sendPage(
      reply,
      jobView({
        job,
        deliveries: await deliveries(app.db, job.id),
        session: current.chrome,
        now: new Date(),
        fingerprint,
      }),
    );
  });
}
