import { createHash, timingSafeEqual } from "node:crypto";
import { webhookHmac } from "../../contract/signing-secret.js";

/**
 * The pure, timing-safe layer of the receiver: Standard Webhooks signatures and secret comparison. Nothing here
 * touches HTTP or storage, so every rule is testable on bytes alone.
 */

/** Standard Webhooks' tolerance: a timestamp more than 5 minutes away from now is refused (replays, skew). */
export const SIGNATURE_TOLERANCE_MS = 5 * 60 * 1000;

export interface WebhookHeaders {
  readonly id: string | undefined;
  readonly timestamp: string | undefined;
  readonly signature: string | undefined;
}

export type VerifyFailure =
  | "missing_headers"
  | "malformed_timestamp"
  | "timestamp_too_old"
  | "timestamp_in_future"
  | "signature_mismatch";

export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly reason: VerifyFailure };

/**
 * Verifies the raw body against every configured key (rotation on our side) and every `v1,` signature in the
 * header (rotation on the sender's side). Every candidate is compared, so time does not reveal which matched.
 */
export function verifyWebhook(
  keys: readonly Buffer[],
  headers: WebhookHeaders,
  body: Uint8Array,
  nowMs: number,
  toleranceMs = SIGNATURE_TOLERANCE_MS,
): VerifyResult {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) return { ok: false, reason: "missing_headers" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "malformed_timestamp" };
  const ageMs = nowMs - Number(timestamp) * 1000;
  if (ageMs > toleranceMs) return { ok: false, reason: "timestamp_too_old" };
  if (ageMs < -toleranceMs) return { ok: false, reason: "timestamp_in_future" };

  const offered = signature
    .split(" ")
    .filter((part) => part.startsWith("v1,"))
    .map((part) => Buffer.from(part.slice(3), "base64"));
  let matched = false;
  for (const key of keys) {
    const expected = webhookHmac(key, id, timestamp, body);
    for (const candidate of offered) {
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
  }
  return matched ? { ok: true } : { ok: false, reason: "signature_mismatch" };
}

/**
 * Constant-time membership test for path secrets and reader tokens. Hashing first gives equal lengths, so
 * neither the content nor the length of a configured secret leaks through timing.
 */
export function matchesAnySecret(candidate: string, secrets: readonly string[]): boolean {
  const digest = sha256(candidate);
  let matched = false;
  for (const secret of secrets) {
    if (timingSafeEqual(digest, sha256(secret))) matched = true;
  }
  return matched;
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
