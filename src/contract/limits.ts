/**
 * Limits of the spec and of the contract, defined once. Every side (client validation, service, constructs)
 * reads them from here so that a change of limit is a one-line change. Characters are Unicode code points
 * (`charCount` in text.ts), as the spec says characters.
 */
export const DESCRIPTION_MAX_CHARS = 100;
export const SCRIPT_MAX_CHARS = 2000;
/**
 * Synchronous request limits: the spec states none, these are project decisions (docs/decisions.md). An API
 * path is a few dozen characters; the parameters hold API words, `=script=` among them, so they allow a
 * script's worth of words with room to spare.
 */
export const SYNC_COMMAND_MAX_CHARS = 256;
export const SYNC_PARAMETERS_MAX_CHARS = 8192;
/** A simulated router's name (admin API and seed file). */
export const ROUTER_NAME_MAX_CHARS = 100;
/** `seq_id` is an `integer` column in the service's and the receiver's tables. */
export const SEQ_ID_MAX = 2 ** 31 - 1;
/** Request bodies above this size are refused with 413 (docs/service.md). */
export const BODY_MAX_BYTES = 64 * 1024;
/** The spec's request rate: 60 requests per minute per API key. */
export const DEFAULT_RATE_LIMIT = { count: 60, windowMs: 60_000 } as const;
/** An Idempotency-Key is remembered this long by the service. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const TOKEN_SECRET_CHARS = 62;
