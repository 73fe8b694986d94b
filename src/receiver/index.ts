/**
 * The light half of the receiver, for callers that wait on it (`apply`). The server (`./server.js`) loads
 * fastify and PGlite, so it is imported on its own where it runs.
 */
export * from "./errors.js";
export * from "./job-view.js";
export { parseSigningSecret, SIGNATURE_TOLERANCE_MS, signWebhook, verifyWebhook } from "./verify.js";
export * from "./wait-client.js";
