/**
 * The retry policy, kept pure so that it is tested without a network (stripe-node `RequestSender`).
 */
import type { RouterjobsError } from "../errors.js";
import { fullJitterMs } from "../platform/backoff.js";
import { ApiError, NetworkError, RateLimitedError, TimeoutError } from "./errors.js";

/** What a call does; it decides how safe a repeat is. */
/** `cancel` deletes: a repeat after an attempt that reached the service would answer that the job is gone. */
export type Operation = "execute" | "submit" | "list" | "cancel";

export interface RetryContext {
  readonly operation: Operation;
  /** Attempts made so far, counting the one that just failed (1 after the first). */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly error: RouterjobsError;
  /**
   * A submission to an API that documents honouring its idempotency key (the `sdx` profile): a resend with the
   * same key answers the job already made, so it is as safe as a read. @default false
   */
  readonly keyHonoured?: boolean;
}

/** Certificate problems repeat identically on every attempt: retrying them only wastes the deadline. */
const CERTIFICATE_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT/;

/** Ordered rules: the first that decides wins. */
export function shouldRetry(ctx: RetryContext): boolean {
  const { operation, error } = ctx;
  // Out of attempts.
  if (ctx.attempt >= ctx.maxAttempts) return false;
  // A synchronous command has no idempotency: a repeat may apply a change twice (spec, Rules 2).
  if (operation === "execute") return false;
  const transport = error instanceof NetworkError || error instanceof TimeoutError ? error : undefined;
  // A certificate the client does not trust will not be trusted on the next attempt either.
  if (transport && CERTIFICATE_CODE.test(transport.causeCode ?? "")) return false;
  // The service refused the request without acting on it and asked us to come back.
  if (error instanceof RateLimitedError) return true;
  if (error instanceof ApiError && error.statusCode === 503 && error.retryAfterMs !== undefined) return true;
  // A submission is repeated only when it provably never reached the service (the key makes that safe
  // anyway on our service, but the public service's spec API documents no idempotency header), unless the
  // API honours the key: then it falls through to the rules of a read.
  if ((operation === "submit" && ctx.keyHonoured !== true) || operation === "cancel")
    return transport !== undefined && !transport.requestSent;
  // Reads are safe to repeat after any transport failure or server-side error.
  if (transport) return true;
  return error instanceof ApiError && error.statusCode >= 500 && error.name !== "BadResponseError";
}

export interface BackoffSettings {
  /** First delay bound. @default 250 */
  readonly baseDelayMs: number;
  /** Cap of the computed backoff (not of Retry-After, which is honoured in full). @default 20000 */
  readonly maxDelayMs: number;
}

/**
 * Full jitter (`random(0, min(cap, base * 2^(attempt-1)))`). A Retry-After is waited in full, plus a small
 * jitter so that the processes it paused do not all return in the same millisecond.
 */
export function backoffMs(
  attempt: number,
  retryAfterMs: number | undefined,
  settings: BackoffSettings,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return retryAfterMs + Math.floor(random() * settings.baseDelayMs);
  return fullJitterMs(attempt, settings.baseDelayMs, settings.maxDelayMs, random);
}

/**
 * `Retry-After` is either delay-seconds or an HTTP date (RFC 9110 10.2.3); undefined when neither. A date is
 * read against the response's own `Date` header when it has one: both come from the server's clock, which
 * may be far from ours, and only their difference means anything here.
 */
export function parseRetryAfter(
  value: string | undefined,
  serverDate?: string,
  now: number = Date.now(),
): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  const reference = serverDate === undefined ? Number.NaN : Date.parse(serverDate);
  return Math.max(0, date - (Number.isNaN(reference) ? now : reference));
}
