import { Readable } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod";
import { successEnvelope } from "../../../../contract/envelope.js";
import { describeValue } from "../../../../contract/ids.js";
import { JOB_STATUSES, jobRecordSchema, type KnownJobStatus } from "../../../../contract/job.js";
import { findRouter } from "../../../auth/directory.js";
import {
  InvalidCursorError,
  isKnownStatus,
  JOB_PAGE_MAX,
  JOB_TEXT_FILTER_MAX,
  jobListJson,
  jobPageJson,
} from "../../../jobs/job-page.js";
import { Turns } from "../../../scheduling/turns-per-key.js";
import { HttpError, routerNotFound } from "../../http-error.js";
import { callerOf } from "../../plugins/auth.js";
import { methodNotAllowed } from "../../plugins/errors.js";
import { emittedJobListSchema, routerParamsSchema } from "../schemas.js";
import { aroundChunks, sendWritten } from "../send-written.js";

const URL = "/routers/:router_id/jobs";
/** Page size when a client sends `cursor` without `limit`. */
const DEFAULT_PAGE = 100;

/**
 * Extension (docs/decisions.md): `limit`, `cursor`, `status` and `text` (in the description, case-insensitive:
 * how `routerjobs apply` finds its attempt marker) in the query. Without them the answer is the
 * spec's, every job; unknown query parameters stay ignored as before.
 */
const querySchema = z.looseObject({
  limit: z
    .string()
    .regex(/^\d{1,4}$/, {
      error: (issue) => `limit must be a whole number (got ${describeValue(issue.input)})`,
    })
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= JOB_PAGE_MAX, {
      error: (issue) => `limit must be from 1 to ${JOB_PAGE_MAX} (got ${describeValue(issue.input)})`,
    })
    .optional(),
  cursor: z.string().max(100, { error: "cursor is not one this service handed out" }).optional(),
  text: z
    .string()
    .min(1, { error: "text must not be empty" })
    .max(JOB_TEXT_FILTER_MAX, { error: `text must be at most ${JOB_TEXT_FILTER_MAX} characters` })
    .optional(),
  status: z
    .string()
    .transform((value) => value.split(","))
    .refine((values) => values.every(isKnownStatus), {
      error: (issue) =>
        `status must be one or more of ${JOB_STATUSES.join(", ")}, comma-separated (got ${describeValue(issue.input)})`,
    })
    .optional(),
});

const pagedResponseSchema = successEnvelope(z.array(jobRecordSchema)).extend({
  next_cursor: z.string().nullable(),
});

/** GET /api/routers/:router_id/jobs: every job of the router, newest first (seq_id descending). */
const jobs: FastifyPluginAsyncZod = async (app) => {
  // One list of a router at a time, from the handler's first query until the answer is sent or the client
  // went away (scheduling/turns-per-key.ts): a router's long history then holds one request's share of the
  // event loop.
  const turns = new Turns();
  app.get(
    URL,
    {
      // Its statements go after the calls in flight (interactive-first.ts), through `history` below.
      config: { interactive: false },
      preHandler: async (request, reply) => {
        const turn = turns.take(request.params.router_id);
        // Ended once the answer is sent or the client has gone, whether the turn came yet or not.
        const end = () => void turn.then((release) => release());
        if (reply.raw.closed) end();
        else reply.raw.once("close", end);
        await turn;
      },
      schema: {
        params: routerParamsSchema,
        querystring: querySchema,
        response: { 200: z.union([pagedResponseSchema, emittedJobListSchema]) },
      },
    },
    async (request, reply) => {
      const { teamId } = callerOf(request);
      const routerId = request.params.router_id;
      if (!(await findRouter(app.db, teamId, routerId))) throw routerNotFound(routerId);
      const { limit, cursor, text } = request.query;
      const history = app.interactiveFirst.yielding(app.db);
      const statuses = request.query.status as KnownJobStatus[] | undefined;
      if (limit === undefined && cursor === undefined) {
        // The spec's whole list, its JSON written by the database a chunk at a time (jobListJson) and sent as
        // it comes: the event loop neither builds nor holds a long router's megabytes of JSON, nor encrypts
        // them in one go.
        const chunks = jobListJson(history, {
          teamId,
          routerId,
          ...(statuses ? { statuses } : {}),
          ...(text === undefined ? {} : { text }),
        });
        // The first chunk before the status line (aroundChunks).
        const first = await chunks.next();
        return sendWritten(
          reply,
          Readable.from(aroundChunks('{"status":"success","data":[', first, chunks, "]}")),
        );
      }
      try {
        // A page's JSON is written by the database too (jobPageJson).
        const page = await jobPageJson(history, {
          teamId,
          routerId,
          limit: limit ?? DEFAULT_PAGE,
          ...(cursor === undefined ? {} : { cursor }),
          ...(statuses ? { statuses } : {}),
          ...(text === undefined ? {} : { text }),
        });
        const next = page.nextCursor === undefined ? "null" : JSON.stringify(page.nextCursor);
        return sendWritten(reply, `{"status":"success","data":${page.json},"next_cursor":${next}}`);
      } catch (error) {
        if (!(error instanceof InvalidCursorError)) throw error;
        throw new HttpError("invalid_request", "the request is invalid: check cursor", [
          { field: "cursor", message: "is not one this service handed out; start again without it" },
        ]);
      }
    },
  );
  methodNotAllowed(app, URL, ["GET"]);
};

export default jobs;
