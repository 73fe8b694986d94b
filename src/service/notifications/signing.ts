import { parseSigningSecret, webhookSignature } from "../../contract/signing-secret.js";

/**
 * The Standard Webhooks headers (https://www.standardwebhooks.com) of one notification, signed with the team's
 * `whsec_` secret: the same signature the receiver checks (src/contract/signing-secret.ts).
 */
export function signedHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": webhookSignature(parseSigningSecret(secret), id, timestampSeconds, body),
  };
}
