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
/** A TLS handshake that failed: a certificate not trusted, or no TLS at all on the other side. */
export const TLS_HANDSHAKE_CODE = /^ERR_SSL_|^ERR_TLS_|CERT|SELF_SIGNED|UNABLE_TO_VERIFY/;

/** Where the user sets what a failure may be wrong about, for the fix a message names. */
export interface PeerSettings {
  /** `ROUTERJOBS_URL or --url` */
  readonly url: string;
  /** `ROUTERJOBS_CA_FILE or --ca-file` */
  readonly ca: string;
}

/** Who was asked: `the service`, at which URL, and where its URL and CA are set. */
export interface Peer {
  readonly name: string;
  readonly url: URL;
  readonly settings?: PeerSettings | undefined;
}

/**
 * The message holds the peer, the low-level reason and code, and for a failure whose cause is known the fix
 * (a service not running there, ...), never a header (so never a token).
 */
export function requestFailure(error: unknown, peer: Peer): NetworkError | TimeoutError {
  const code = causeCode(error);
  const who = `${peer.name} at ${peer.url.origin}`;
  if (code === "UND_ERR_CONNECT_TIMEOUT") {
    return new TimeoutError(`timed out connecting to ${who}`, {
      phase: "connect",
      requestSent: false,
      causeCode: code,
      cause: error,
    });
  }
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    return new TimeoutError(`timed out waiting for the answer of ${who}`, {
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
  const fix = fixFor(code, peer);
  return new NetworkError(
    `cannot reach ${who}: ${reason}${code ? ` (${code})` : ""}${fix ? `: ${fix}` : ""}`,
    {
      requestSent: !notSent,
      causeCode: code,
      cause: error,
    },
  );
}

/** What to do about a failure whose cause says what is wrong, in the user's terms. */
function fixFor(code: string | undefined, peer: Peer): string | undefined {
  const { url, ca } = peer.settings ?? { url: "its URL", ca: "the CA to trust" };
  const https = peer.url.protocol === "https:";
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN")
    return `is ${peer.name} running there? (check ${url})`;
  if (code !== undefined && UNTRUSTED_CODES.has(code))
    return `its certificate is not signed by a CA this process trusts: set ${ca} to the PEM file of the CA that signed it`;
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID")
    return `its certificate is for another host name: use a name the certificate holds in ${url}`;
  if (https && code !== undefined && NO_TLS_CODES.has(code))
    return `it does not speak TLS at that address: use http:// in ${url}`;
  // A TLS server closes a connection that sends plain HTTP without a word: the one sign of it.
  if (!https && (code === "UND_ERR_SOCKET" || code === "ECONNRESET"))
    return `it closed the connection without an answer; if it serves HTTPS, use https:// in ${url}`;
  return undefined;
}

/** A certificate chain that ends at no CA this process trusts. */
const UNTRUSTED_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_UNTRUSTED",
]);

/** OpenSSL's words for an answer to its ClientHello that is not TLS (an HTTP server's 400). */
const NO_TLS_CODES = new Set([
  "ERR_SSL_WRONG_VERSION_NUMBER",
  "ERR_SSL_PACKET_LENGTH_TOO_LONG",
  "ERR_SSL_HTTP_REQUEST",
]);

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
