/**
 * Error responses to error classes. Apart from errors.ts because reading the envelope needs zod, and the
 * classes are needed (for `instanceof`) where zod is not: the CLI's start-up.
 */
import { type ErrorBody, readErrorBody } from "../contract/errors.js";
import {
  ApiError,
  type ApiErrorInit,
  AuthenticationError,
  CommandFailedError,
  RateLimitedError,
} from "./errors.js";
import { jsonOrUndefined } from "./http/request.js";

const RAW_KEEP_CHARS = 2000;

export interface ResponseFacts {
  readonly statusCode: number;
  readonly text: string;
  readonly requestId?: string | undefined;
  readonly retryAfterMs?: number | undefined;
}

/** What an error response says, read once for every client of ours (the API, the receiver, the admin API). */
export interface ErrorResponse {
  /** The error body in any shape the contract reads (our envelope, Laravel's, the public service's). */
  readonly body: ErrorBody | undefined;
  /** The body's message, else what the body was: a snippet of it, or that it was empty. */
  readonly message: string;
  readonly requestId: string | undefined;
  /** The response body as text when it was not an error body (truncated). */
  readonly raw: string | undefined;
}

export function readErrorResponse(statusCode: number, text: string, peer = "the service"): ErrorResponse {
  const json = jsonOrUndefined(text);
  const body = readErrorBody(json);
  return {
    body,
    message: describeFailure(statusCode, body?.message, text, peer),
    requestId: envelopeRequestId(json),
    raw: body ? undefined : text.slice(0, RAW_KEEP_CHARS),
  };
}

/**
 * The one place that turns an error response of the API into an error class (as stripe's `generateV1Error`).
 * It reads the project's envelope, Laravel's `{message, errors}` and the public service's documented
 * `{type, code, message, doc_url}` (code, type and doc URL kept on the error); any other body is kept as `raw`.
 */
export function errorFromResponse(response: ResponseFacts): ApiError {
  const { statusCode, text, retryAfterMs } = response;
  const read = readErrorResponse(statusCode, text);
  const body = read.body;
  const init: ApiErrorInit = {
    statusCode,
    apiCode: body?.code,
    message: read.message,
    details: body?.details,
    requestId: response.requestId ?? read.requestId,
    raw: read.raw,
    retryAfterMs,
    errorType: body?.type,
    docUrl: body?.docUrl,
  };
  if (statusCode === 429) return new RateLimitedError(init);
  if (statusCode === 401) return new AuthenticationError(init);
  if (body?.code === "command_failed") return new CommandFailedError(init);
  return new ApiError(init);
}

function describeFailure(
  statusCode: number,
  message: string | undefined,
  text: string,
  peer: string,
): string {
  if (message) return `${message} (HTTP ${statusCode})`;
  const snippet = text.trim().replace(/\s+/g, " ").slice(0, 120);
  return `${peer} answered HTTP ${statusCode}${snippet ? ` with a body that is not an error envelope: ${snippet}` : " with an empty body"}`;
}

function envelopeRequestId(json: unknown): string | undefined {
  const value = (json as { error?: { request_id?: unknown } } | undefined)?.error?.request_id;
  return typeof value === "string" ? value : undefined;
}
