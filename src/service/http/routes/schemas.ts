import * as z from "zod";
import { successEnvelope } from "../../../contract/envelope.js";
import { describeValue, UUID_PATTERN } from "../../../contract/ids.js";
import { type jobAckSchema, jobRecordSchema } from "../../../contract/job.js";
import { routerRecordSchema } from "../../../contract/sync.js";
import { HttpError } from "../http-error.js";

/**
 * Route schemas built from src/contract: the strict shapes the service emits, named `emitted*` apart from the
 * contract's tolerant readers of the same answers (which the client uses).
 */
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

/**
 * The key of a submission from either header (the spec's clients send `Idempotency-Key`, some both). Two
 * different keys are refused: which one the client will retry with is unknown, and the first alone could make
 * a retry under the other run the job twice.
 */
export function idempotencyKeyOf(headers: z.output<typeof idempotencyHeadersSchema>): string | undefined {
  const plain = headers["idempotency-key"];
  const prefixed = headers["x-idempotency-key"];
  if (plain !== undefined && prefixed !== undefined && plain !== prefixed) {
    const message = "differs from the other idempotency header: send one key, or the same key in both";
    throw new HttpError(
      "bad_request",
      `Idempotency-Key (${plain}) and X-Idempotency-Key (${prefixed}) name different keys: send one, or the same key in both`,
      [
        { field: "Idempotency-Key", message },
        { field: "X-Idempotency-Key", message },
      ],
    );
  }
  return plain ?? prefixed;
}

/**
 * The acknowledgement as the service writes it: every field the contract's reader knows (`satisfies` fails the
 * build when the contract gains one), strictly typed, and our extension.
 */
const emittedAckFields = {
  idempotency_key: z.string(),
  request_id: z.string(),
  target: z.string(),
  notify_url: z.string().nullable(),
  date: z.string(),
} satisfies Record<keyof typeof jobAckSchema.shape, z.ZodType>;

export const emittedJobAckSchema = successEnvelope(
  z.object({
    ...emittedAckFields,
    // Our extension: the job the submission made (or found, on a replay), as the job list names it.
    job_id: z.string(),
    seq_id: z.number().int(),
  }),
);
export const emittedJobListSchema = successEnvelope(z.array(jobRecordSchema));
export const emittedSyncSchema = successEnvelope(z.array(routerRecordSchema));
