/**
 * The light half of the receiver, for callers that wait on it (`apply`). The server (`./server.js`) loads
 * fastify and PGlite, so it is imported on its own where it runs.
 */

export { parseSigningSecret, webhookSignature as signWebhook } from "../../contract/signing-secret.js";
export * from "./errors.js";
export * from "./job-view.js";
export { SIGNATURE_TOLERANCE_MS, verifyWebhook } from "./verify.js";
export * from "./wait-client.js";
