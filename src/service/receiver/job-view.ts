import * as z from "zod";
import { successEnvelope } from "../../contract/envelope.js";
import { tolerantJobStatusSchema } from "../../contract/job.js";

/**
 * A job as the receiver knows it, the `data` of the wait API (found by `idempotency_key` or `job_id`). The server builds it and the wait client reads it
 * through this one schema. `last_heard_at` is when the receiver last stored a notification for the job (its
 * clock), which tells `apply` whether the notification path is alive.
 */
export const receivedJobSchema = z.looseObject({
  job_id: z.string(),
  // Absent until a notification of the job carries them: the public service promises only job_id and status.
  idempotency_key: z.string().optional(),
  router_id: z.string().optional(),
  customer_id: z.string().optional(),
  seq_id: z.number().int().optional(),
  description: z.string().optional(),
  status: tolerantJobStatusSchema,
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  failed_at: z.string().nullable(),
  deleted_at: z.string().nullable(),
  error: z.string().nullable(),
  first_heard_at: z.string(),
  last_heard_at: z.string(),
  /** Statuses of the notifications stored for the job, in arrival order (duplicates are not stored). */
  heard: z.array(z.string()).optional(),
});
export type ReceivedJob = z.output<typeof receivedJobSchema>;

export const receivedJobEnvelopeSchema = successEnvelope(receivedJobSchema);
export const receivedJobListEnvelopeSchema = successEnvelope(z.array(receivedJobSchema));
