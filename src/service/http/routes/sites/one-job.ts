import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod";
import { jobAlreadyStartedBody } from "../../../../contract/errors.js";
import { UUID_PATTERN } from "../../../../contract/ids.js";
import { siteJobSchema, siteParamsSchema } from "../../../../contract/sites.js";
import { findRouter } from "../../../auth/directory.js";
import { cancelJob } from "../../../jobs/lifecycle.js";
import { findSiteJob } from "../../../jobs/submit.js";
import { HttpError } from "../../http-error.js";
import { callerOf } from "../../plugins/auth.js";
import { methodNotAllowed } from "../../plugins/errors.js";
import type { SiteJobsOptions } from "./jobs.js";
import { toSiteJob } from "./site-job.js";
import { siteNotFound } from "./site-not-found.js";

/** Any text: a job id that is no UUID names no job (404), as an unknown one does, rather than a 422. */
const oneJobParamsSchema = siteParamsSchema.extend({ jobId: z.string() });

const jobNotFound = (siteId: string, jobId: string) =>
  new HttpError(
    "not_found",
    `site ${siteId} has no job ${JSON.stringify(jobId.slice(0, 40))} (deleted jobs are not shown here)`,
  );

/**
 * GET and DELETE `/sites/:siteId/jobs/:jobId`: one job, and cancelling one that has not started. A deleted job
 * is not found, as the list leaves it out. A job that started, completed or failed cannot be cancelled: 409
 * with the public service's documented body (`jobAlreadyStartedBody`), which names the job's status.
 */
const siteJob: FastifyPluginAsyncZod<SiteJobsOptions> = async (app, { segment }) => {
  const url = `/:siteId/${segment}/:jobId`;
  // Neither route reads a body: one sent anyway, of any type or empty, is ignored rather than parsed.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, _body, done) => done(null, undefined));
  const params = { params: oneJobParamsSchema };

  const target = async (teamId: string, siteId: string, jobId: string) => {
    if (!(await findRouter(app.db, teamId, siteId))) throw siteNotFound(siteId);
    if (!UUID_PATTERN.test(jobId)) throw jobNotFound(siteId, jobId);
  };

  app.get(url, { schema: { ...params, response: { 200: siteJobSchema } } }, async (request) => {
    const { teamId } = callerOf(request);
    const { siteId, jobId } = request.params;
    await target(teamId, siteId, jobId);
    const job = await findSiteJob(app.db, teamId, siteId, jobId);
    if (!job) throw jobNotFound(siteId, jobId);
    return toSiteJob(job);
  });

  app.delete(url, { schema: params }, async (request, reply) => {
    const { teamId } = callerOf(request);
    const { siteId, jobId } = request.params;
    await target(teamId, siteId, jobId);
    const result = await cancelJob(app.db, { teamId, routerId: siteId, jobId }, new Date());
    if (result.kind === "not_found") throw jobNotFound(siteId, jobId);
    if (result.kind === "already_started") {
      return reply.code(409).send(jobAlreadyStartedBody(jobId, result.job.status));
    }
    app.notifier.wake();
    return reply.code(200).send(toSiteJob(result.job));
  });
  methodNotAllowed(app, url, ["GET", "DELETE"]);
};

export default siteJob;
