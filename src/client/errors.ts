/**
 * Errors of the API client, one class per kind of failure, each with a stable `code` (docs/errors.md).
 * No error holds the API token: requests are never attached, only what the response said.
 */
import type { ErrorDetail } from "../contract/errors.js";
import { type ErrorCode, RouterjobsError } from "../errors.js";

/** A request or an option broke a rule; raised before anything is sent. */
export class ValidationError extends RouterjobsError {
  override readonly name = "ValidationError";
  override readonly code = "RJ_ERR_VALIDATION";
  readonly details: readonly ErrorDetail[];

  constructor(details: readonly ErrorDetail[], subject = "request") {
    super(`invalid ${subject}: ${details.map((detail) => detail.message).join("; ")}`);
    this.details = details;
  }
}

export interface ApiErrorInit {
  readonly statusCode: number;
  /** The service's own error code (`router_not_found`), when its body said one. */
  readonly apiCode?: string | undefined;
  readonly message: string;
  readonly details?: readonly ErrorDetail[] | undefined;
  readonly requestId?: string | undefined;
  /** The response body as text, kept only when it was not an error envelope (truncated). */
  readonly raw?: string | undefined;
  /** What `Retry-After` asked for, in ms (a 429, or a 503 during maintenance). */
  readonly retryAfterMs?: number | undefined;
  /** The documented error shape's `type` (`invalid_request_error`), when the body was that shape. */
  readonly errorType?: string | undefined;
  /** The documented error shape's `doc_url`: where the service explains this error. */
  readonly docUrl?: string | undefined;
}

/** The service answered with an error status. */
export class ApiError extends RouterjobsError {
  override readonly name: string = "ApiError";
  override readonly code: ErrorCode = "RJ_ERR_API";
  readonly statusCode: number;
  readonly apiCode: string | undefined;
  readonly details: readonly ErrorDetail[];
  readonly requestId: string | undefined;
  readonly raw: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly errorType: string | undefined;
  readonly docUrl: string | undefined;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.statusCode = init.statusCode;
    this.apiCode = init.apiCode;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.raw = init.raw;
    this.retryAfterMs = init.retryAfterMs;
    this.errorType = init.errorType;
    this.docUrl = init.docUrl;
  }
}

/** 401: the token is missing, malformed, unknown or revoked. */
export class AuthenticationError extends ApiError {
  override readonly name = "AuthenticationError";
  override readonly code = "RJ_ERR_UNAUTHENTICATED";
}

/** The router refused a synchronous command (400 `command_failed`); the message is the router's text. */
export class CommandFailedError extends ApiError {
  override readonly name = "CommandFailedError";
  override readonly code = "RJ_ERR_COMMAND_FAILED";
}

/** 429: over the service's request rate. `retryAfterMs` is what the service asked us to wait. */
export class RateLimitedError extends ApiError {
  override readonly name = "RateLimitedError";
  override readonly code = "RJ_ERR_RATE_LIMITED";
}

/** A 2xx whose body is not the contract's envelope (not JSON, or the wrong shape). */
export class BadResponseError extends ApiError {
  override readonly name = "BadResponseError";
  override readonly code = "RJ_ERR_BAD_RESPONSE";
}

interface TransportErrorInit {
  /** False only where the request provably never reached the service (refused, DNS, TLS handshake). */
  readonly requestSent: boolean;
  /** The low-level code (`ECONNREFUSED`, `UND_ERR_SOCKET`). */
  readonly causeCode?: string | undefined;
  readonly cause?: unknown;
}

/** The connection failed or dropped: no HTTP answer was received. */
export class NetworkError extends RouterjobsError {
  override readonly name = "NetworkError";
  override readonly code = "RJ_ERR_NETWORK";
  readonly requestSent: boolean;
  readonly causeCode: string | undefined;

  constructor(message: string, init: TransportErrorInit) {
    super(message, { cause: init.cause });
    this.requestSent = init.requestSent;
    this.causeCode = init.causeCode;
  }
}

/** Where a timeout struck: connecting, waiting for the answer, the call's deadline, or waiting for budget. */
export type TimeoutPhase = "connect" | "response" | "deadline" | "budget";

export class TimeoutError extends RouterjobsError {
  override readonly name = "TimeoutError";
  override readonly code = "RJ_ERR_TIMEOUT";
  readonly phase: TimeoutPhase;
  readonly requestSent: boolean;
  readonly causeCode: string | undefined;

  constructor(message: string, init: TransportErrorInit & { phase: TimeoutPhase }) {
    super(message, { cause: init.cause });
    this.phase = init.phase;
    this.requestSent = init.requestSent;
    this.causeCode = init.causeCode;
  }
}

export interface FailedJob {
  readonly id: string;
  readonly seq_id?: number | undefined;
  readonly status: string;
  readonly error?: string | null | undefined;
}

/** A job ended `failed` or `deleted` (for commands that wait for a job's outcome). */
export class JobFailedError extends RouterjobsError {
  override readonly name = "JobFailedError";
  override readonly code = "RJ_ERR_JOB_FAILED";
  readonly job: FailedJob;

  constructor(job: FailedJob, message?: string) {
    const seq = job.seq_id === undefined ? "" : ` (#${job.seq_id})`;
    super(message ?? `job ${job.id}${seq} ${job.status}${job.error ? `: ${job.error}` : ""}`);
    this.job = job;
  }
}
