import * as z from "zod";
import { type JobAck, type JobListItem, jobAckSchema, jobListItemSchema } from "./job.js";
import { tolerantRouterRecordSchema } from "./sync.js";

/** `{"status":"success","data":...}`; a tolerant reader accepts any 2xx with this shape. */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.looseObject({ status: z.literal("success"), data });
}

export const syncResponseSchema = successEnvelope(z.array(tolerantRouterRecordSchema));
export const jobAckEnvelopeSchema = successEnvelope(jobAckSchema);
export const jobListEnvelopeSchema = successEnvelope(z.array(jobListItemSchema));

export type SyncResponse = z.output<typeof syncResponseSchema>;
export type { JobAck, JobListItem };
