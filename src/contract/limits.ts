/**
 * Limits of the spec and of the contract, defined once. Every side (client validation, service, constructs)
 * reads them from here so that a change of limit is a one-line change.
 */
export const DESCRIPTION_MAX_CHARS = 100;
export const SCRIPT_MAX_CHARS = 2000;
/** Request bodies above this size are refused with 413 (CONTRACT.md). */
export const BODY_MAX_BYTES = 64 * 1024;
/** The spec's request rate: 60 requests per minute per API key. */
export const DEFAULT_RATE_LIMIT = { count: 60, windowMs: 60_000 } as const;
/** An Idempotency-Key is remembered this long by the service. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const TOKEN_SECRET_CHARS = 62;
