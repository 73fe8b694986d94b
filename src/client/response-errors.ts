/**
 * Error responses to error classes. Apart from errors.ts because reading the envelope needs zod, and the
 * classes are needed (for `instanceof`) where zod is not: the CLI's start-up.
 */
import { readErrorBody } from "../contract/errors.js";
import {
  ApiError,
  type ApiErrorInit,
  AuthenticationError,
  CommandFailedError,
  RateLimitedError,
} from "./errors.js";

const RAW_KEEP_CHARS = 2000;

export interface ResponseFacts {
  readonly statusCode: number;
  readonly text: string;
  readonly requestId?: string | undefined;
  readonly retryAfterMs?: number | undefined;
}

/**
 * The one place that turns an error response into an error class (as stripe's `generateV1Error`). It reads
 * the project's envelope and Laravel's `{message, errors}`; any other body is kept as `raw`.
 */
export function errorFromResponse(response: ResponseFacts): ApiError {
  const { statusCode, text, retryAfterMs } = response;
  const json = parseJson(text);
  const body = readErrorBody(json);
  const init: ApiErrorInit = {
    statusCode,
    apiCode: body?.code,
    message: describeFailure(statusCode, body?.message, text),
    details: body?.details,
    requestId: response.requestId ?? envelopeRequestId(json),
    raw: body ? undefined : text.slice(0, RAW_KEEP_CHARS),
    retryAfterMs,
  };
  if (statusCode === 429) return new RateLimitedError(init);
  if (statusCode === 401) return new AuthenticationError(init);
  if (body?.code === "command_failed") return new CommandFailedError(init);
  return new ApiError(init);
}

function describeFailure(statusCode: number, message: string | undefined, text: string): string {
  if (message) return `${message} (HTTP ${statusCode})`;
  const snippet = text.trim().replace(/\s+/g, " ").slice(0, 120);
  return `the service answered HTTP ${statusCode}${snippet ? ` with a body that is not an error envelope: ${snippet}` : " with an empty body"}`;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function envelopeRequestId(json: unknown): string | undefined {
  const value = (json as { error?: { request_id?: unknown } } | undefined)?.error?.request_id;
  return typeof value === "string" ? value : undefined;
}
