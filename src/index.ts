/**
 * The package's library entry: the API client, the contract's schemas and types, and the RouterOS script
 * builder and helpers. The constructs are a separate entry (`routerjobs/constructs`) so that using the
 * client never loads cdktf.
 */
export * from "./client/index.js";
export * from "./contract/index.js";
export * as helpers from "./routeros/build/helpers/index.js";
export { buildCommand, parseScript, quoteValue } from "./routeros/index.js";
