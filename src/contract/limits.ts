/**
 * Limits of the spec and of the contract, defined once. Every side (client validation, service, constructs)
 * reads them from here so that a change of limit is a one-line change. Characters are Unicode code points
 * (`charCount` in text.ts), as the spec says characters.
 */
import type { ApiProfileName } from "./api-profile-name.js";

export const DESCRIPTION_MAX_CHARS = 100;
/**
 * A script's length in characters, by API profile: the spec's API takes 1 to 2,000, the newer sites API 3 to
 * 10,000 (docs/public-service.md). Our service's routes take what the public service's routes of the same
 * name take, so a script that passes here passes at either service.
 */
export const SCRIPT_CHARS: Readonly<Record<ApiProfileName, { readonly min: number; readonly max: number }>> =
  {
    spec: { min: 1, max: 2000 },
    sdx: { min: 3, max: 10_000 },
  };
/** The spec's limit, which every profile takes: what a script meant for any API (an import's section) keeps to. */
export const SCRIPT_MAX_CHARS = SCRIPT_CHARS.spec.max;
/**
 * Synchronous request limits: the spec states none, these are project decisions (docs/decisions.md). An API
 * path is a few dozen characters; the parameters hold API words, `=script=` among them, so they allow a
 * script's worth of words with room to spare.
 */
export const SYNC_COMMAND_MAX_CHARS = 256;
export const SYNC_PARAMETERS_MAX_CHARS = 8192;
/** A simulated router's name (admin API and seed file). */
export const ROUTER_NAME_MAX_CHARS = 100;
/** A team's name (admin API and seed file), as the portal shows it. */
export const TEAM_NAME_MAX_CHARS = 100;
/** `seq_id` is an `integer` column in the service's and the receiver's tables. */
export const SEQ_ID_MAX = 2 ** 31 - 1;
/** Request bodies above this size are refused with 413 (docs/service.md). */
export const BODY_MAX_BYTES = 64 * 1024;
/** The spec's request rate: 60 requests per minute per API key. */
export const DEFAULT_RATE_LIMIT = { count: 60, windowMs: 60_000 } as const;
/** An Idempotency-Key is remembered this long by the service. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const TOKEN_SECRET_CHARS = 62;
