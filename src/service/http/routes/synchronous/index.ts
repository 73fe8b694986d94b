import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { syncRequestSchema } from "../../../../contract/sync.js";
import { findRouter } from "../../../auth/directory.js";
import { routerFailure, routerNotFound } from "../../http-error.js";
import { callerOf } from "../../plugins/auth.js";
import { methodNotAllowed } from "../../plugins/errors.js";
import { emittedSyncSchema, routerParamsSchema } from "../schemas.js";

const URL = "/synchronous/:router_id";

/** POST /api/synchronous/:router_id: forwards one API command to the router and returns its records. */
const synchronous: FastifyPluginAsyncZod = async (app) => {
  app.post(
    URL,
    {
      schema: { params: routerParamsSchema, body: syncRequestSchema, response: { 200: emittedSyncSchema } },
    },
    async (request) => {
      const { teamId } = callerOf(request);
      const routerId = request.params.router_id;
      const router = await findRouter(app.db, teamId, routerId);
      if (!router) throw routerNotFound(routerId);
      const { command, parameters } = request.body;
      const records = await app.routers
        .command(router, command, parameters, app.config.syncTimeoutMs)
        .catch(routerFailure);
      return { status: "success" as const, data: records };
    },
  );
  methodNotAllowed(app, URL, ["POST"]);
};

export default synchronous;
