/**
 * The one HTTP core of the project's clients (the API client, the receiver's wait client, the operator's admin
 * calls): one undici Pool per origin that owns the TLS trust (a CA file, such as a loopback service's own),
 * the connect and response timeouts, the bearer header, a bounded read of the answer, and the mapping of a
 * failure to the `RouterjobsError` family. The callers keep their paths, schemas and retry rules.
 *
 * `request()` on our own dispatcher, not the global fetch: Node's fetch bundles another undici copy that
 * ignores this dispatcher. The Pool and `request` come from their own modules, not from undici's index: the
 * index also loads fetch, WebSocket, the mock agents, the caches and every interceptor, more code than the
 * client uses, which every `routerjobs apply` process would load and keep (figures: docs/performance.md;
 * docs/decisions.md). undici has no `exports` map, so these paths are public by Node's rules;
 * undici-parts.d.ts types them.
 */
import type { Dispatcher } from "undici";
import request from "undici/lib/api/api-request.js";
import Pool from "undici/lib/dispatcher/pool.js";
import { BadResponseError } from "../errors.js";
import { type Peer, type PeerSettings, requestFailure } from "./request-failure.js";

export type CaOption = string | Buffer | readonly (string | Buffer)[];

export interface HttpOriginOptions {
  /** Origin and an optional path prefix that every request's path goes under (`https://h/api`). */
  readonly baseUrl: URL;
  /** Who answers, for error messages: `the service`, `the receiver` (the origin is added). */
  readonly peerName: string;
  /** Where the user sets this origin's URL and CA, named by the fix a failure's message gives. */
  readonly peerSettings?: PeerSettings | undefined;
  /** PEM of the CA(s) to trust. @default the system's CAs */
  readonly ca?: CaOption | undefined;
  /** @default 10_000 */
  readonly connectTimeoutMs?: number | undefined;
  /** Wait for the answer's headers, and between two chunks of its body, per request. @default 300_000 */
  readonly responseTimeoutMs?: number | undefined;
  /** Sent as `Authorization: Bearer <token>` on every request; never part of an error. @default none */
  readonly bearerToken?: string | undefined;
  /** Connections kept to the origin. @default unlimited */
  readonly connections?: number | undefined;
  /** A larger answer fails with BadResponseError instead of filling memory. @default 16 MiB */
  readonly maxBodyBytes?: number | undefined;
}

export interface HttpRequest {
  readonly method: "GET" | "POST" | "DELETE";
  /** Path (and query) below the base URL, starting with `/`. */
  readonly path: string;
  readonly headers?: Record<string, string> | undefined;
  readonly body?: string | undefined;
  /** Overrides the origin's `responseTimeoutMs` for this request. */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface HttpResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

export class HttpOrigin {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #peer: Peer;
  readonly #authorization: string | undefined;
  readonly #responseTimeoutMs: number;
  readonly #maxBodyBytes: number;

  constructor(options: HttpOriginOptions) {
    const origin = options.baseUrl.origin;
    this.#peer = { name: options.peerName, url: options.baseUrl, settings: options.peerSettings };
    this.#basePath = options.baseUrl.pathname.replace(/\/+$/, "");
    this.#authorization = options.bearerToken === undefined ? undefined : `Bearer ${options.bearerToken}`;
    this.#responseTimeoutMs = options.responseTimeoutMs ?? 300_000;
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#pool = new Pool(origin, {
      ...(options.connections === undefined ? {} : { connections: options.connections }),
      keepAliveTimeout: 10_000,
      connect: {
        timeout: options.connectTimeoutMs ?? 10_000,
        ...(options.ca ? { ca: options.ca as string | Buffer | (string | Buffer)[] } : {}),
      },
    });
  }

  /**
   * One request, its answer read to the end (an unread body holds its connection and later requests stall).
   * Any status is an answer: the caller maps its own statuses. A failure without an answer is a NetworkError
   * or TimeoutError; when the request's signal aborted it, the signal's error is thrown as it came, so the
   * caller can tell its own deadline or cancel from the network's.
   */
  async send(call: HttpRequest): Promise<HttpResponse> {
    const timeoutMs = call.timeoutMs ?? this.#responseTimeoutMs;
    const headers =
      this.#authorization === undefined
        ? (call.headers ?? {})
        : { authorization: this.#authorization, ...call.headers };
    try {
      const response = await request.call(this.#pool, {
        path: `${this.#basePath}${call.path}`,
        method: call.method,
        headers,
        body: call.body ?? null,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: call.signal ?? null,
      });
      const text = await this.#readBody(response);
      return { statusCode: response.statusCode, headers: response.headers, text };
    } catch (error) {
      if (error instanceof BadResponseError || call.signal?.aborted) throw error;
      throw requestFailure(error, this.#peer);
    }
  }

  /** Maps a low-level failure of a request to this origin (see request-failure.ts). */
  describeFailure(error: unknown) {
    return requestFailure(error, this.#peer);
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  /**
   * The body as text, at most `maxBodyBytes`. A declared length is checked before a byte is read (undici holds
   * the body to it), and the body then read whole; a chunked body is counted as it comes.
   */
  async #readBody({ statusCode, headers, body }: Dispatcher.ResponseData): Promise<string> {
    const declared = Number(headers["content-length"]);
    // undici holds a body to its declared length, so a small declared length is a small body.
    if (declared <= this.#maxBodyBytes) return body.text();
    if (Number.isNaN(declared)) {
      // Chunked: counted as it comes.
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > this.#maxBodyBytes) break;
        chunks.push(chunk);
      }
      if (size <= this.#maxBodyBytes) return Buffer.concat(chunks).toString("utf8");
    }
    body.destroy();
    throw new BadResponseError({
      statusCode,
      message: `the answer of ${this.#peer.name} at ${this.#peer.url.origin} is larger than ${this.#maxBodyBytes} bytes`,
    });
  }
}

/** The body as JSON, or undefined when it is not JSON (an error page, an empty body). */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
