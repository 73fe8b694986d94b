import { randomUUID } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { jobRequestSchema } from "../../../../contract/job.js";
import { IDEMPOTENCY_TTL_MS } from "../../../../contract/limits.js";
import { formatTimestamp } from "../../../../contract/time.js";
import { submitJob } from "../../../jobs/submit.js";
import {
  literalAddress,
  NotifyDestinationError,
  type NotifyDestinations,
} from "../../../notifications/notify-destinations.js";
import { HttpError, routerNotFound } from "../../http-error.js";
import { callerOf } from "../../plugins/auth.js";
import { methodNotAllowed } from "../../plugins/errors.js";
import { acceptedSubmission } from "../accepted-submission.js";
import {
  emittedJobAckSchema,
  idempotencyHeadersSchema,
  idempotencyKeyOf,
  routerParamsSchema,
} from "../schemas.js";

const URL = "/asynchronous/:router_id";

/** POST /api/asynchronous/:router_id: queues a job and acknowledges at once (202). */
const asynchronous: FastifyPluginAsyncZod = async (app) => {
  app.post(
    URL,
    {
      schema: {
        params: routerParamsSchema,
        body: jobRequestSchema,
        headers: idempotencyHeadersSchema,
        response: { 202: emittedJobAckSchema },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const routerId = request.params.router_id;
      refuseForbiddenNotifyUrl(app.notifyDestinations, request.body.notify_url);
      const result = await submitJob(app.db, {
        teamId: caller.teamId,
        routerId,
        request: request.body,
        idempotencyKey: idempotencyKeyOf(request.headers) ?? randomUUID(),
        requestId: request.id,
        now: new Date(),
        idempotencyTtlMs: IDEMPOTENCY_TTL_MS,
      });
      const job = acceptedSubmission(app, reply, result, {
        teamId: caller.teamId,
        notFound: () => routerNotFound(routerId),
        keyHeader: "Idempotency-Key",
      });
      return reply.code(202).send({
        status: "success",
        data: {
          idempotency_key: job.idempotency_key,
          request_id: job.request_id,
          target: job.router_id,
          notify_url: job.notify_url,
          date: formatTimestamp(job.created_at),
          // Our extension (docs/service.md): the job itself, so that a submitter can follow it by its number.
          job_id: job.id,
          seq_id: job.seq_id,
        },
      });
    },
  );
  methodNotAllowed(app, URL, ["POST"]);
};

export default asynchronous;

/** A `notify_url` whose literal address the service would never call is refused at once, naming the field. */
function refuseForbiddenNotifyUrl(destinations: NotifyDestinations, notifyUrl: string | undefined): void {
  const literal = notifyUrl === undefined ? undefined : literalAddress(notifyUrl);
  if (literal === undefined) return;
  try {
    destinations.check(literal);
  } catch (error) {
    if (!(error instanceof NotifyDestinationError)) throw error;
    throw new HttpError("invalid_request", error.message, [{ field: "notify_url", message: error.message }]);
  }
}
