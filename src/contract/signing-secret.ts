/**
 * Standard Webhooks signing secrets, `whsec_<base64 key>`. The service signs with the team's secret and the
 * receiver verifies with the same one, so both validate it with this one function: the service must never
 * accept a secret that the receiver would refuse.
 */
import { createHmac } from "node:crypto";
import { UsageError } from "../errors.js";

const SIGNING_SECRET_PREFIX = "whsec_";

/** Decodes `whsec_<base64>` to the HMAC key; the error names the rule, never the secret. */
export function parseSigningSecret(secret: string): Buffer {
  const encoded = secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : "";
  const key = Buffer.from(encoded, "base64");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length < 24 || key.length > 64) {
    throw new UsageError(
      "signing secret must be whsec_ followed by the base64 of 24 to 64 random bytes, as Standard Webhooks secrets are",
    );
  }
  return key;
}

/** HMAC-SHA256 over `id.timestamp.body`: what a Standard Webhooks signature signs. */
export function webhookHmac(key: Buffer, id: string, timestamp: string, body: string | Uint8Array): Buffer {
  return createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
}

/** `v1,<base64 HMAC>`: the `webhook-signature` the service sends and the receiver checks. */
export function webhookSignature(
  key: Buffer,
  id: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): string {
  return `v1,${webhookHmac(key, id, String(timestampSeconds), body).toString("base64")}`;
}
