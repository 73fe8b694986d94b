import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { HttpError } from "../../http-error.js";
import { methodNotAllowed } from "../../plugins/errors.js";

/**
 * GET /healthz: 200 once the service serves and its database answers; 503 while writes are refused for lack
 * of space (reads would still answer, so `SELECT 1` alone would call a service healthy that accepts nothing).
 * Unauthenticated, not rate limited.
 */
const health: FastifyPluginAsyncZod = async (app) => {
  app.get("/healthz", async () => {
    await app.db.query("SELECT 1");
    const storageFull = app.storageFull.current();
    if (storageFull !== undefined) throw new HttpError("service_unavailable", storageFull);
    return { status: "success", data: { database: app.db.kind, instance_id: app.scheduler.instanceId } };
  });
  methodNotAllowed(app, "/healthz", ["GET"]);
};

export default health;
