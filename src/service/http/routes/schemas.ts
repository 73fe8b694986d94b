import * as z from "zod";
import { successEnvelope } from "../../../contract/envelope.js";
import { describeValue, UUID_PATTERN } from "../../../contract/ids.js";
import { jobRecordSchema } from "../../../contract/job.js";
import { routerRecordSchema } from "../../../contract/sync.js";

/** Route schemas built from src/contract: the strict shapes the service emits (the client reads tolerantly). */
export const routerParamsSchema = z.object({
  router_id: z.string().regex(UUID_PATTERN, {
    error: (issue) => `router_id must be a lowercase UUID (got ${describeValue(issue.input)})`,
  }),
});

const headerUuid = (name: string) =>
  z
    .string()
    .regex(new RegExp(UUID_PATTERN.source, "i"), {
      error: (issue) => `${name} must be a UUID (got ${describeValue(issue.input)})`,
    })
    .transform((value) => value.toLowerCase())
    .optional();

export const idempotencyHeadersSchema = z.looseObject({
  "idempotency-key": headerUuid("Idempotency-Key"),
  "x-idempotency-key": headerUuid("X-Idempotency-Key"),
});

export const jobAckResponseSchema = successEnvelope(
  z.object({
    idempotency_key: z.string(),
    request_id: z.string(),
    target: z.string(),
    notify_url: z.string().nullable(),
    date: z.string(),
  }),
);
export const jobListResponseSchema = successEnvelope(z.array(jobRecordSchema));
export const syncResponseSchema = successEnvelope(z.array(routerRecordSchema));
