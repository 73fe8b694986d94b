import * as z from "zod";
import { API_PROFILES, type ApiProfileName, DEFAULT_API_PROFILE } from "./api-profile-name.js";
import { describeValue, tolerantUuidSchema, uuidSchema } from "./ids.js";
import { DESCRIPTION_MAX_CHARS, SCRIPT_CHARS, SEQ_ID_MAX } from "./limits.js";
import { charCount, unstorableStrings } from "./text.js";
import { textField } from "./text-field.js";
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

/**
 * The words the device's job wrapper reports to the public service (docs/public-service.md). A service that
 * passes them on unchanged still means the spec's states.
 */
const DEVICE_STATUS_WORDS: Readonly<Record<string, KnownJobStatus>> = {
  busy: "running",
  done: "completed",
  fail: "failed",
};

/** A status as sent, read tolerantly: the spec's words, the device's words, else "unknown" (never terminal). */
export function readJobStatus(value: string): JobStatus {
  if ((JOB_STATUSES as readonly string[]).includes(value)) return value as KnownJobStatus;
  return Object.hasOwn(DEVICE_STATUS_WORDS, value)
    ? (DEVICE_STATUS_WORDS[value] as KnownJobStatus)
    : "unknown";
}

/** Tolerant status: a value outside the known set parses as "unknown" instead of failing the whole response. */
export const tolerantJobStatusSchema = z.string().transform(readJobStatus);

export interface JobTimes {
  readonly started_at: string | null;
  readonly completed_at: string | null;
  readonly failed_at: string | null;
  readonly deleted_at: string | null;
}

/**
 * The state of a job that carries no `status` (the public service's newer job list), from its timestamps. A
 * deletion outranks an outcome, and an outcome outranks a start: each later moment implies the earlier ones.
 */
export function statusFromTimes(times: JobTimes): KnownJobStatus {
  if (times.deleted_at !== null) return "deleted";
  if (times.failed_at !== null) return "failed";
  if (times.completed_at !== null) return "completed";
  if (times.started_at !== null) return "running";
  return "pending";
}

const booleanField = (field: string) =>
  z.boolean({
    error: (issue) => `${field} must be a boolean true or false (got ${describeValue(issue.input)})`,
  });

export const descriptionSchema = textField("description", {
  nonEmpty: true,
  maxChars: DESCRIPTION_MAX_CHARS,
});

/**
 * Why `script` does not fit the API profile `api`'s length limits, read after the field name; undefined when it
 * fits. A script too long for one profile names the profile that takes it, so the fix is in the message.
 */
export function scriptLengthProblem(script: string, api: ApiProfileName): string | undefined {
  const chars = charCount(script);
  const { min, max } = SCRIPT_CHARS[api];
  if (chars === 0) return "must not be empty";
  if (chars < min) return `must be at least ${min} characters on the ${api} API (got ${chars})`;
  if (chars <= max) return undefined;
  const roomier = API_PROFILES.filter((other) => SCRIPT_CHARS[other].max >= chars)
    .map((other) => `the ${other} API takes up to ${SCRIPT_CHARS[other].max}`)
    .join("; ");
  return `must be at most ${max} characters on the ${api} API (got ${chars})${roomier ? `; ${roomier}` : ""}`;
}

/** The script of a job submitted through the API profile `api`: storable text within that profile's limits. */
export function scriptSchemaFor(api: ApiProfileName) {
  return textField("script").superRefine((value, ctx) => {
    const problem = scriptLengthProblem(value, api);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: `script ${problem}` });
  });
}

/** The spec's script (1 to 2,000 characters): our service's spec route and a request that names no profile. */
export const scriptSchema = scriptSchemaFor(DEFAULT_API_PROFILE);

/** Text within the longest limit of any profile: the first check of a script whose profile another field names. */
export const anyProfileScriptSchema = textField("script", {
  nonEmpty: true,
  maxChars: Math.max(...API_PROFILES.map((api) => SCRIPT_CHARS[api].max)),
});

export const notifyUrlSchema = textField("notify_url").refine(isHttpsUrl, {
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
 * The asynchronous job request as the service accepts it (docs/service.md): missing booleans take the spec's
 * defaults, a present one of the wrong type is refused, unknown fields are refused so that typos do not pass.
 */
export const jobRequestSchema = requestSchemaWith(DEFAULT_API_PROFILE, descriptionSchema);

/**
 * The asynchronous job request as the API profile `api` takes it: the same fields, that profile's script limits;
 * the sites API's newer edition makes X-Description optional, the spec requires a description.
 */
export function jobRequestSchemaFor(api: ApiProfileName) {
  return api === "sdx"
    ? requestSchemaWith(api, descriptionSchema.optional())
    : requestSchemaWith(api, descriptionSchema);
}

function requestSchemaWith<D extends z.ZodType>(api: ApiProfileName, description: D) {
  return z.strictObject(
    {
      description,
      script: scriptSchemaFor(api),
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
}
export type JobRequest = z.output<typeof jobRequestSchema>;
/** A submission as a profile takes it: the sites API (`sdx`) may go without a description. */
export type ProfileJobRequest = z.output<ReturnType<typeof jobRequestSchemaFor>>;
/** What `submitJob` is given: `description` may be left out only where the profile takes that (`sdx`). */
export type JobRequestInput = z.input<ReturnType<typeof jobRequestSchemaFor>>;

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

/**
 * One item of the job list, as a tolerant client reads it: the spec's item, or the public service's newer one
 * (`should_backup` for `make_backup`, no `status`, no `seq_id`). The output always has `make_backup` and a
 * `status`; unknown fields are kept. `error` and `created_at` are the project's extensions.
 */
export const jobListItemSchema = z
  .looseObject({
    id: tolerantUuidSchema,
    token: z.string().optional(),
    idempotency_key: tolerantUuidSchema,
    // A sites API job submitted without X-Description (optional there) may list null: read as no text.
    description: z
      .string()
      .nullish()
      .transform((text) => text ?? ""),
    express_execute: z.boolean(),
    needs_acknowledgement: z.boolean(),
    make_backup: z.boolean().optional(),
    should_backup: z.boolean().optional(),
    ...jobTimes,
    status: tolerantJobStatusSchema.optional(),
    seq_id: z.number().int().optional(),
    error: z.string().nullish(),
    /** When the service accepted the job: our service's extension and the public service's newer list. */
    created_at: nullableTimestampSchema.optional(),
  })
  .transform((item, ctx) => {
    const makeBackup = item.make_backup ?? item.should_backup;
    if (makeBackup === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["make_backup"],
        message: "make_backup (or should_backup) must be a boolean true or false (got nothing)",
      });
      return z.NEVER;
    }
    // An explicit status wins, even "unknown": a word we do not know must not be overruled by a guess.
    const read: typeof item & { make_backup: boolean; status: JobStatus } = {
      ...item,
      make_backup: makeBackup,
      status: item.status ?? statusFromTimes(item),
    };
    return read;
  });
export type JobListItem = z.output<typeof jobListItemSchema>;

/**
 * A job list answer: the spec's envelope `{"status":"success","data":[...]}` or the bare array of the public
 * service's newer API, read as the envelope.
 */
export const jobListResponseSchema = z.preprocess(
  (body) => (Array.isArray(body) ? { status: "success", data: body } : body),
  z.looseObject({ status: z.literal("success"), data: z.array(jobListItemSchema) }),
);

const seqIdMessage = (issue: { input?: unknown }) =>
  `seq_id must be a whole number from 1 to ${SEQ_ID_MAX} (got ${describeValue(issue.input)})`;

/** Refuses text that PostgreSQL cannot store anywhere in a JSON value, naming where it is. */
const storableJsonSchema = z.unknown().superRefine((value, ctx) => {
  for (const issue of unstorableStrings(value))
    ctx.addIssue({ code: "custom", ...issue, path: [...issue.path] });
});

/**
 * The notification payload posted to `notify_url`. Only `job_id` and `status` are required: the public service
 * documents nothing more, so every other field of the spec's payload is optional (and checked when present).
 * A receiver stores it whole, unknown fields too, and the status as sent, so every string of the raw payload
 * must be storable text; `seq_id` must fit the integer column.
 */
export const notificationSchema = storableJsonSchema.pipe(
  z.looseObject({
    job_id: tolerantUuidSchema,
    customer_id: tolerantUuidSchema.optional(),
    description: z.string().optional(),
    router_id: tolerantUuidSchema.optional(),
    idempotency_key: tolerantUuidSchema.optional(),
    express_execute: z.boolean().optional(),
    needs_acknowledgement: z.boolean().optional(),
    make_backup: z.boolean().optional(),
    seq_id: z
      .number({ error: seqIdMessage })
      .refine((value) => Number.isInteger(value) && value >= 1 && value <= SEQ_ID_MAX, {
        error: seqIdMessage,
      })
      .optional(),
    ...jobTimes,
    status: tolerantJobStatusSchema,
    error: z.string().nullish(),
  }),
);
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
  /**
   * The project's extension, as the public service's newer list has it: when the service accepted the job.
   * `apply` tells by it a failure that came after the apply that submitted the job stopped waiting.
   */
  created_at: timestampSchema,
});
export type JobRecord = z.output<typeof jobRecordSchema>;
