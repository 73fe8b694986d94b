import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { methodNotAllowed } from "../../plugins/errors.js";

/** GET /healthz: 200 once the service serves and its database answers. Unauthenticated, not rate limited. */
const health: FastifyPluginAsyncZod = async (app) => {
  app.get("/healthz", async () => {
    await app.db.query("SELECT 1");
    return { status: "success", data: { database: app.db.kind, instance_id: app.scheduler.instanceId } };
  });
  methodNotAllowed(app, "/healthz", ["GET"]);
};

export default health;
