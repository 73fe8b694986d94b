import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { routerNotFound } from "../../http-error.js";
import { callerOf } from "../../plugins/auth.js";
import { methodNotAllowed } from "../../plugins/errors.js";
import { findRouter } from "../../store/directory.js";
import { listJobs } from "../../store/jobs.js";
import { toJobRecord } from "../../store/rows.js";
import { jobListResponseSchema, routerParamsSchema } from "../schemas.js";

const URL = "/routers/:router_id/jobs";

/** GET /api/routers/:router_id/jobs: every job of the router, newest first (seq_id descending). */
const jobs: FastifyPluginAsyncZod = async (app) => {
  app.get(
    URL,
    { schema: { params: routerParamsSchema, response: { 200: jobListResponseSchema } } },
    async (request) => {
      const { teamId } = callerOf(request);
      const routerId = request.params.router_id;
      if (!(await findRouter(app.db, teamId, routerId))) throw routerNotFound(routerId);
      const rows = await listJobs(app.db, teamId, routerId);
      return { status: "success" as const, data: rows.map(toJobRecord) };
    },
  );
  methodNotAllowed(app, URL, ["GET"]);
};

export default jobs;
