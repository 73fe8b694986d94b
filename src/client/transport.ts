/**
 * One HTTP attempt over the client's own undici Pool (keep-alive, timeouts, custom CA). Node's global fetch
 * bundles another undici copy that ignores this dispatcher, hence `request()` (NOTES.md).
 *
 * The Pool and `request` come from their own modules, not from undici's index: the index also loads fetch,
 * WebSocket, the mock agents, the caches and every interceptor, twice the code, and that cost 0.03 s of CPU
 * and 8 MiB in every `routerjobs apply` process (issue 20, docs/decisions.md). undici has no `exports` map, so
 * these paths are public by Node's rules; undici-parts.d.ts types them, and the client's tests run them.
 */

import request from "undici/lib/api/api-request.js";
import Pool from "undici/lib/dispatcher/pool.js";
import { NetworkError, TimeoutError } from "./errors.js";

export interface TransportSettings {
  readonly baseUrl: URL;
  readonly ca: string | Buffer | readonly (string | Buffer)[] | undefined;
  readonly connectTimeoutMs: number;
}

export interface AttemptRequest {
  readonly method: "GET" | "POST";
  /** Path below the base URL, starting with `/`. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

export interface AttemptResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** Failures that happen before a byte of the request is written: the service provably never saw it. */
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

export class Transport {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #origin: string;

  constructor(settings: TransportSettings) {
    this.#origin = settings.baseUrl.origin;
    this.#basePath = settings.baseUrl.pathname.replace(/\/+$/, "");
    this.#pool = new Pool(this.#origin, {
      connections: 8,
      keepAliveTimeout: 10_000,
      connect: {
        timeout: settings.connectTimeoutMs,
        ...(settings.ca ? { ca: settings.ca as string | Buffer | (string | Buffer)[] } : {}),
      },
    });
  }

  async send(attempt: AttemptRequest): Promise<AttemptResponse> {
    const response = await request.call(this.#pool, {
      path: `${this.#basePath}${attempt.path}`,
      method: attempt.method,
      headers: attempt.headers,
      body: attempt.body ?? null,
      headersTimeout: attempt.timeoutMs,
      bodyTimeout: attempt.timeoutMs,
      signal: attempt.signal ?? null,
    });
    // Always read the body to its end: an unread body holds its connection and later requests stall.
    const text = await response.body.text();
    return { statusCode: response.statusCode, headers: response.headers, text };
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  /** Maps a low-level failure to NetworkError/TimeoutError, recording whether the request may have been seen. */
  describeFailure(error: unknown): NetworkError | TimeoutError {
    const code = causeCode(error);
    const where = `the service at ${this.#origin}`;
    if (code === "UND_ERR_CONNECT_TIMEOUT") {
      return new TimeoutError(`timed out connecting to ${where}`, {
        phase: "connect",
        requestSent: false,
        causeCode: code,
        cause: error,
      });
    }
    if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      return new TimeoutError(`timed out waiting for the answer of ${where}`, {
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
    return new NetworkError(`cannot reach ${where}: ${reason}${code ? ` (${code})` : ""}`, {
      requestSent: !notSent,
      causeCode: code,
      cause: error,
    });
  }
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
