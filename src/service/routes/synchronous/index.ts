import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { syncRequestSchema } from "../../../contract/sync.js";
import { HttpError, routerNotFound } from "../../http-error.js";
import { callerOf } from "../../plugins/auth.js";
import { methodNotAllowed } from "../../plugins/errors.js";
import { RouterCommandError, RouterTimeoutError, RouterUnreachableError } from "../../routers/backend.js";
import { findRouter } from "../../store/directory.js";
import { saveRouterState } from "../../store/lifecycle.js";
import { routerParamsSchema, syncResponseSchema } from "../schemas.js";

const URL = "/synchronous/:router_id";
/** Commands that only read: their result needs no snapshot of the router afterwards. */
const READ_ONLY = /\/(print|getall|get|export|monitor|ping)$/;

/** POST /api/synchronous/:router_id: forwards one API command to the router and returns its records. */
const synchronous: FastifyPluginAsyncZod = async (app) => {
  app.post(
    URL,
    {
      schema: { params: routerParamsSchema, body: syncRequestSchema, response: { 200: syncResponseSchema } },
    },
    async (request) => {
      const { teamId } = callerOf(request);
      const routerId = request.params.router_id;
      const router = await findRouter(app.db, teamId, routerId);
      if (!router) throw routerNotFound(routerId);
      if (!router.online) throw new HttpError("router_unreachable", "the router is offline");
      await app.routers.sync({ ...router, stateVersion: router.state_version });
      const { command, parameters } = request.body;
      // The signal also stops the command on the router: a script left running would hold it for nobody.
      const stop = new AbortController();
      const records = await withTimeout(
        app.routers.backend.command(routerId, command, parameters, { signal: stop.signal }),
        app.config.syncTimeoutMs,
      )
        .catch(toHttpError)
        .finally(() => stop.abort());
      if (!READ_ONLY.test(command)) {
        const version = await saveRouterState(app.db, routerId, app.routers.backend.snapshot(routerId));
        app.routers.saved(routerId, version);
      }
      return { status: "success" as const, data: records };
    },
  );
  methodNotAllowed(app, URL, ["POST"]);
};

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RouterTimeoutError(`the router did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function toHttpError(error: unknown): never {
  if (error instanceof RouterCommandError) throw new HttpError("command_failed", error.message);
  if (error instanceof RouterUnreachableError) {
    throw new HttpError("router_unreachable", `the router is not reachable: ${error.message}`);
  }
  if (error instanceof RouterTimeoutError) {
    throw new HttpError("router_timeout", `the router did not answer in time: ${error.message}`);
  }
  throw error;
}

export default synchronous;
