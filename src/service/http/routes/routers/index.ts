import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod";
import { successEnvelope } from "../../../../contract/envelope.js";
import { teamRouters } from "../../../auth/directory.js";
import { callerOf } from "../../plugins/auth.js";
import { methodNotAllowed } from "../../plugins/errors.js";

const URL = "/routers";

const responseSchema = successEnvelope(
  z.array(z.object({ id: z.string(), name: z.string(), online: z.boolean() })),
);

/**
 * GET /api/routers (extension, docs/service.md): the routers of the caller's team, by name, so that a person
 * can find one and the CLI can take a router's name where it takes its id.
 */
const routers: FastifyPluginAsyncZod = async (app) => {
  app.get(URL, { schema: { response: { 200: responseSchema } } }, async (request) => {
    const { teamId } = callerOf(request);
    const rows = await teamRouters(app.db, teamId);
    return {
      status: "success" as const,
      data: rows.map(({ id, name, online }) => ({ id, name, online })),
    };
  });
  methodNotAllowed(app, URL, ["GET"]);
};

export default routers;
