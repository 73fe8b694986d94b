import { Readable } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { JOB_STATUSES } from "../../../../contract/job.js";
import { IDEMPOTENCY_TTL_MS } from "../../../../contract/limits.js";
import {
  siteJobHeadersSchema,
  siteJobListSchema,
  siteJobSchema,
  siteParamsSchema,
  siteScriptSchema,
} from "../../../../contract/sites.js";
import { findRouter } from "../../../auth/directory.js";
import { jobListJson } from "../../../jobs/job-page.js";
import { submitJob } from "../../../jobs/submit.js";
import { callerOf } from "../../plugins/auth.js";
import { methodNotAllowed } from "../../plugins/errors.js";
import { acceptedSubmission } from "../accepted-submission.js";
import { aroundChunks, sendWritten } from "../send-written.js";
import { SITE_JOB_ITEM, toSiteJob } from "./site-job.js";
import { siteNotFound } from "./site-not-found.js";
import { acceptOnlyTextPlain } from "./text-body.js";

/** Every state but `deleted`: the sites API's list shows no soft-deleted job. */
const LISTED_STATUSES = JOB_STATUSES.filter((status) => status !== "deleted");

export interface SiteJobsOptions {
  /** `jobs` under `/sites`, `job` under the `/site` alias. */
  readonly segment: "jobs" | "job";
}

/**
 * POST and GET `/sites/:siteId/jobs`: the same jobs as `/api/asynchronous` and `/api/routers/:id/jobs`, through
 * the same store functions (one idempotency mechanism, one queue), shown the sites API's way.
 */
const siteJobs: FastifyPluginAsyncZod<SiteJobsOptions> = async (app, { segment }) => {
  const url = `/:siteId/${segment}`;
  acceptOnlyTextPlain(app);

  app.post(
    url,
    {
      schema: {
        params: siteParamsSchema,
        headers: siteJobHeadersSchema,
        body: siteScriptSchema,
        response: { 202: siteJobSchema },
      },
    },
    async (request, reply) => {
      const { teamId } = callerOf(request);
      const { siteId } = request.params;
      const headers = request.headers;
      const result = await submitJob(app.db, {
        teamId,
        routerId: siteId,
        request: {
          description: headers["x-description"],
          script: request.body,
          make_backup: headers["x-backup"],
          express_execute: headers["x-express-execute"],
          needs_acknowledgement: headers["x-needs-ack"],
        },
        idempotencyKey: headers["x-idempotency-key"],
        requestId: request.id,
        now: new Date(),
        idempotencyTtlMs: IDEMPOTENCY_TTL_MS,
      });
      const job = acceptedSubmission(app, reply, result, {
        teamId,
        notFound: () => siteNotFound(siteId),
        keyHeader: "X-Idempotency-Key",
      });
      return reply.code(202).send(toSiteJob(job));
    },
  );

  app.get(
    url,
    // A site's history is written by the database in chunks that go after the calls in flight
    // (interactive-first.ts), and sent as it comes: a long history neither holds the database for one long
    // statement nor the event loop for 10,000 rows (send-written.ts).
    {
      config: { interactive: false },
      schema: { params: siteParamsSchema, response: { 200: siteJobListSchema } },
    },
    async (request, reply) => {
      const { teamId } = callerOf(request);
      const { siteId } = request.params;
      if (!(await findRouter(app.db, teamId, siteId))) throw siteNotFound(siteId);
      // The documented list omits soft-deleted jobs; the sites job object has no field that could say "deleted".
      const chunks = jobListJson(
        app.interactiveFirst.yielding(app.db),
        {
          teamId,
          routerId: siteId,
          statuses: LISTED_STATUSES,
        },
        SITE_JOB_ITEM,
      );
      // The first chunk before the status line (aroundChunks).
      const first = await chunks.next();
      return sendWritten(reply, Readable.from(aroundChunks("[", first, chunks, "]")));
    },
  );
  methodNotAllowed(app, url, ["GET", "POST"]);
};

export default siteJobs;
