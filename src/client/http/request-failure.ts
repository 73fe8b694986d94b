/**
 * A low-level failure of an HTTP request (undici, node:net, node:tls) as the project's NetworkError or
 * TimeoutError, recording whether the peer may have seen the request: a caller may repeat a non-idempotent
 * request only when it provably was not sent.
 */
import { NetworkError, TimeoutError } from "../errors.js";

/** Failures that happen before a byte of the request is written: the peer provably never saw it. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);
const TLS_HANDSHAKE_CODE = /^ERR_SSL_|^ERR_TLS_|CERT|SELF_SIGNED|UNABLE_TO_VERIFY/;

/**
 * @param peer who was asked, for the message: `the service at https://host:8443`. The message holds the
 * peer, the low-level reason and code, never a header (so never a token).
 */
export function requestFailure(error: unknown, peer: string): NetworkError | TimeoutError {
  const code = causeCode(error);
  if (code === "UND_ERR_CONNECT_TIMEOUT") {
    return new TimeoutError(`timed out connecting to ${peer}`, {
      phase: "connect",
      requestSent: false,
      causeCode: code,
      cause: error,
    });
  }
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    return new TimeoutError(`timed out waiting for the answer of ${peer}`, {
      phase: "response",
      requestSent: true,
      causeCode: code,
      cause: error,
    });
  }
  const notSent =
    failedToConnect(error) ||
    (code !== undefined && (NOT_SENT_CODES.has(code) || TLS_HANDSHAKE_CODE.test(code)));
  const reason = (error as Error | undefined)?.message || "connection failed";
  return new NetworkError(`cannot reach ${peer}: ${reason}${code ? ` (${code})` : ""}`, {
    requestSent: !notSent,
    causeCode: code,
    cause: error,
  });
}

/** A failure of the `connect` call itself (refused, reset while connecting): no request byte was written. */
function failedToConnect(error: unknown): boolean {
  const value = error as { syscall?: unknown; errors?: unknown[]; cause?: unknown } | undefined;
  if (value?.syscall === "connect") return true;
  if (Array.isArray(value?.errors)) return failedToConnect(value.errors[0]);
  return value?.cause ? failedToConnect(value.cause) : false;
}

/** The error code, looking inside the AggregateError that Node's happy-eyeballs connect may raise. */
function causeCode(error: unknown): string | undefined {
  const value = error as { code?: unknown; errors?: unknown[]; cause?: unknown } | undefined;
  if (typeof value?.code === "string") return value.code;
  if (Array.isArray(value?.errors)) return causeCode(value.errors[0]);
  return value?.cause ? causeCode(value.cause) : undefined;
}
