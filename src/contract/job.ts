import { z } from "zod";
import { describeValue, tolerantUuidSchema, uuidSchema } from "./ids.js";
import { DESCRIPTION_MAX_CHARS, SCRIPT_MAX_CHARS } from "./limits.js";
import { nullableTimestampSchema, timestampSchema } from "./time.js";

/** States named by the spec; `loaded` is announced by notifications. */
export const JOB_STATUSES = ["pending", "loaded", "running", "completed", "failed", "deleted"] as const;
export type KnownJobStatus = (typeof JOB_STATUSES)[number];
/** What a tolerant reader makes of a status it does not know: never terminal. */
export type JobStatus = KnownJobStatus | "unknown";

export const TERMINAL_STATUSES: ReadonlySet<JobStatus> = new Set(["completed", "failed", "deleted"]);

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** Order of the lifecycle, so that a reader never moves a job backwards (terminal states share the top). */
export const STATUS_RANK: Readonly<Record<JobStatus, number>> = {
  unknown: 0,
  pending: 1,
  loaded: 2,
  running: 3,
  completed: 4,
  failed: 4,
  deleted: 4,
};

export const jobStatusSchema = z.enum(JOB_STATUSES);

/** Tolerant status: a value outside the known set parses as "unknown" instead of failing the whole response. */
export const tolerantJobStatusSchema = z
  .string()
  .transform(
    (value): JobStatus =>
      (JOB_STATUSES as readonly string[]).includes(value) ? (value as KnownJobStatus) : "unknown",
  );

const lengthLimit = (field: string, max: number) =>
  z.string({ error: (issue) => `${field} must be a string (got ${describeValue(issue.input)})` }).max(max, {
    error: (issue) => `${field} must be at most ${max} characters (got ${String(issue.input).length})`,
  });

const booleanField = (field: string) =>
  z.boolean({
    error: (issue) => `${field} must be a boolean true or false (got ${describeValue(issue.input)})`,
  });

export const descriptionSchema = lengthLimit("description", DESCRIPTION_MAX_CHARS).min(1, {
  error: "description must not be empty",
});
export const scriptSchema = lengthLimit("script", SCRIPT_MAX_CHARS).min(1, {
  error: "script must not be empty",
});

export const notifyUrlSchema = z
  .string({ error: (issue) => `notify_url must be a string (got ${describeValue(issue.input)})` })
  .refine(isHttpsUrl, {
    error: (issue) => `notify_url must be an absolute https: URL (got ${describeValue(issue.input)})`,
  });

/** The spec: "must start with https". Also an absolute URL with a host, written out (`https:x` is refused). */
export function isHttpsUrl(value: string): boolean {
  if (!/^https:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * The asynchronous job request as the service accepts it (CONTRACT.md): missing booleans take the spec's
 * defaults, a present one of the wrong type is refused, unknown fields are refused so that typos do not pass.
 */
export const jobRequestSchema = z.strictObject(
  {
    description: descriptionSchema,
    script: scriptSchema,
    make_backup: booleanField("make_backup").default(false),
    express_execute: booleanField("express_execute").default(false),
    needs_acknowledgement: booleanField("needs_acknowledgement").default(true),
    notify_url: notifyUrlSchema.optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `unknown field ${issue.keys.join(", ")}` : undefined,
  },
);
export type JobRequest = z.output<typeof jobRequestSchema>;
export type JobRequestInput = z.input<typeof jobRequestSchema>;

/** The acknowledgement of a submission (`data` of the 202 envelope). Tolerant: unknown fields are kept. */
export const jobAckSchema = z.looseObject({
  idempotency_key: tolerantUuidSchema,
  request_id: tolerantUuidSchema,
  target: tolerantUuidSchema,
  notify_url: z.string().nullish(),
  date: z.string(),
});
export type JobAck = z.output<typeof jobAckSchema>;

const jobTimes = {
  started_at: nullableTimestampSchema.optional().default(null),
  completed_at: nullableTimestampSchema.optional().default(null),
  failed_at: nullableTimestampSchema.optional().default(null),
  deleted_at: nullableTimestampSchema.optional().default(null),
};

/** One item of the job list, as a tolerant client reads it. `error` is the project's extension. */
export const jobListItemSchema = z.looseObject({
  id: tolerantUuidSchema,
  token: z.string().optional(),
  idempotency_key: tolerantUuidSchema,
  description: z.string(),
  express_execute: z.boolean(),
  needs_acknowledgement: z.boolean(),
  make_backup: z.boolean(),
  ...jobTimes,
  status: tolerantJobStatusSchema,
  seq_id: z.number().int().optional(),
  error: z.string().nullish(),
});
export type JobListItem = z.output<typeof jobListItemSchema>;

/** The notification payload posted to `notify_url`. */
export const notificationSchema = z.looseObject({
  job_id: tolerantUuidSchema,
  customer_id: tolerantUuidSchema,
  description: z.string(),
  router_id: tolerantUuidSchema,
  idempotency_key: tolerantUuidSchema,
  express_execute: z.boolean(),
  needs_acknowledgement: z.boolean(),
  make_backup: z.boolean(),
  seq_id: z.number().int(),
  ...jobTimes,
  status: tolerantJobStatusSchema,
  error: z.string().nullish(),
});
export type Notification = z.output<typeof notificationSchema>;

/** What the service itself emits: the strict shape, with every identifier a lowercase UUID. */
export const jobRecordSchema = z.object({
  id: uuidSchema,
  token: z.string(),
  idempotency_key: uuidSchema,
  description: z.string(),
  express_execute: z.boolean(),
  needs_acknowledgement: z.boolean(),
  make_backup: z.boolean(),
  seq_id: z.number().int().positive(),
  started_at: timestampSchema.nullable(),
  completed_at: timestampSchema.nullable(),
  failed_at: timestampSchema.nullable(),
  deleted_at: timestampSchema.nullable(),
  status: jobStatusSchema,
  error: z.string().nullable(),
});
export type JobRecord = z.output<typeof jobRecordSchema>;
