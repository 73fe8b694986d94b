import type { FastifyInstance, FastifyReply } from "fastify";
import type { JobRow } from "../../jobs/rows.js";
import type { SubmitResult } from "../../jobs/submit.js";
import { HttpError } from "../http-error.js";

/**
 * What every job API does with a submission's result, whatever its shape on the wire: an unknown router or a
 * reused key is the caller's error; a new job is kicked (express) and, when nobody will acknowledge it,
 * announced to the notifier; a replay says so in a header. Returns the job to answer with.
 */
export function acceptedSubmission(
  app: FastifyInstance,
  reply: FastifyReply,
  result: SubmitResult,
  context: {
    readonly teamId: string;
    /** The API's error for a router it does not know. */
    readonly notFound: () => HttpError;
    /** The header the API takes its idempotency key from, named in a conflict's message. */
    readonly keyHeader: string;
  },
): JobRow {
  if (result.kind === "router_not_found") throw context.notFound();
  if (result.kind === "conflict") {
    throw new HttpError(
      "idempotency_conflict",
      `this ${context.keyHeader} was used within 24 h for a different job; use a new key for a new job`,
    );
  }
  const { job } = result;
  if (result.kind === "created") {
    if (job.express_execute) app.scheduler.kick(job.router_id, context.teamId);
    if (!job.needs_acknowledgement) app.notifier.queued(job.notify_url);
  } else {
    reply.header("idempotent-replayed", "true");
  }
  return job;
}
