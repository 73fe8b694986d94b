import * as z from "zod";

/** The service's error codes with their HTTP status (docs/errors.md). */
export const ERROR_STATUS = {
  invalid_json: 400,
  /** Our extension: a request the HTTP layer cannot take as meant (two Authorization headers, RFC 6750 3.1). */
  bad_request: 400,
  command_failed: 400,
  unauthenticated: 401,
  router_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_request: 422,
  rate_limited: 429,
  internal_error: 500,
  router_unreachable: 502,
  service_unavailable: 503,
  router_timeout: 504,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

export const errorDetailSchema = z.object({ field: z.string(), message: z.string() });
export type ErrorDetail = z.output<typeof errorDetailSchema>;

/** The project's error envelope. */
export const errorEnvelopeSchema = z.object({
  status: z.literal("error"),
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    details: z.array(errorDetailSchema).optional(),
    request_id: z.string().optional(),
  }),
});
export type ErrorEnvelope = z.output<typeof errorEnvelopeSchema>;

/** Laravel's shapes, which the public service appears to use: `{message, errors: {field: [..]}}`. */
export const laravelErrorSchema = z.looseObject({
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
});

/**
 * The one error shape the public service documents (its job cancel, docs/public-service.md): `type`, `code`,
 * `message`, `doc_url`. Read leniently: `doc_url` may be missing, other keys may come along.
 */
export const documentedErrorSchema = z.looseObject({
  type: z.string(),
  code: z.string(),
  message: z.string(),
  doc_url: z.string().optional(),
});
export type DocumentedError = z.output<typeof documentedErrorSchema>;

/** The code of a cancel refused because the job started, completed or failed (the documented example). */
export const JOB_ALREADY_STARTED = "job_already_started";

/** The documented body of that refusal; our sites API answers it too, so both services read alike. */
export function jobAlreadyStartedBody(jobId: string, status: string): DocumentedError {
  return {
    type: "invalid_request_error",
    code: JOB_ALREADY_STARTED,
    message: `job ${jobId} is ${status}: only a job that has not started can be cancelled`,
    doc_url: "https://docs.altostrat.io/errors/job_already_started",
  };
}

export function errorEnvelope(code: ErrorCode, message: string, details?: ErrorDetail[]): ErrorEnvelope {
  return { status: "error", error: { code, message, ...(details?.length ? { details } : {}) } };
}

/** What an error body says, whatever its shape. */
export interface ErrorBody {
  readonly code?: string;
  readonly message: string;
  readonly details: ErrorDetail[];
  /** The documented shape's `type` (`invalid_request_error`). */
  readonly type?: string;
  /** The documented shape's `doc_url`: where the error is explained. */
  readonly docUrl?: string;
}

/** What any of the three error shapes says, normalised; undefined when the body is none of them. */
export function readErrorBody(body: unknown): ErrorBody | undefined {
  const ours = errorEnvelopeSchema.safeParse(body);
  if (ours.success) {
    return {
      code: ours.data.error.code,
      message: ours.data.error.message,
      details: ours.data.error.details ?? [],
    };
  }
  const documented = documentedErrorSchema.safeParse(body);
  if (documented.success) {
    const { type, code, message, doc_url } = documented.data;
    return { code, message, details: [], type, ...(doc_url === undefined ? {} : { docUrl: doc_url }) };
  }
  const laravel = laravelErrorSchema.safeParse(body);
  if (laravel.success) {
    const details = Object.entries(laravel.data.errors ?? {}).flatMap(([field, messages]) =>
      messages.map((message) => ({ field, message })),
    );
    return { message: laravel.data.message, details };
  }
  return undefined;
}
