import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { rawReplySchema, siteCommandRequestSchema, siteParamsSchema } from "../../../../contract/sites.js";
import { findRouter } from "../../../auth/directory.js";
import { routerFailure } from "../../http-error.js";
import { callerOf } from "../../plugins/auth.js";
import { methodNotAllowed } from "../../plugins/errors.js";
import { toRawRecord } from "./raw-records.js";
import { siteNotFound } from "./site-not-found.js";

const URL = "/:siteId/commands/synchronous";

/**
 * POST /sites/:siteId/commands/synchronous: a read-only API command, through the same router call as
 * `/api/synchronous` (the words joined the way that route takes them), answered as raw RouterOS records.
 */
const siteCommands: FastifyPluginAsyncZod = async (app) => {
  app.post(
    URL,
    {
      schema: { params: siteParamsSchema, body: siteCommandRequestSchema, response: { 200: rawReplySchema } },
    },
    async (request) => {
      const { teamId } = callerOf(request);
      const { siteId } = request.params;
      const router = await findRouter(app.db, teamId, siteId);
      if (!router) throw siteNotFound(siteId);
      const { command, parameters } = request.body;
      const records = await app.routers
        .command(router, command, parameters.join(" "), app.config.syncTimeoutMs)
        .catch(routerFailure);
      return records.map(toRawRecord);
    },
  );
  methodNotAllowed(app, URL, ["POST"]);
};

export default siteCommands;
