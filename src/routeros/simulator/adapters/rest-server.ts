/**
 * The HTTPS server of a simulated router's REST API, as RouterOS's www-ssl serves `/rest`: HTTP basic auth
 * checked on every request (401 `{"error":401,"message":"Unauthorized"}` otherwise), JSON bodies (415 for a
 * body of another type, 413 above the size limit), and a deadline per request after which the command is
 * stopped and answered `Session closed`. What a request means is the front end's (`rest-front-end.ts`).
 *
 * A client speaking plain HTTP to this port fails its TLS handshake and the connection is closed at once.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { Socket } from "node:net";
import { DEFAULT_SERVER_TIMEOUTS } from "../../../platform/http/server-timeouts.js";
import { clientAddress } from "../../api/server.js";
import { type RestHandler, type RestResponse, restError } from "./rest-front-end.js";

export interface RestServerOptions {
  readonly host?: string;
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** PEM certificate and key (www-ssl's certificate). */
  readonly tls: { readonly cert: string; readonly key: string };
  authenticate(user: string, password: string): boolean | Promise<boolean>;
  readonly handler: RestHandler;
  /** RouterOS stops a REST command after 60 s. @default 60000 */
  readonly deadlineMs?: number;
  /** @default 1 MiB, the API's sentence limit */
  readonly maxBodyBytes?: number;
  /**
   * Why the router's configuration keeps a client address out now, or undefined to answer it: a refused
   * address's new connections are reset before the TLS handshake, and a request on a connection it already
   * had resets that connection (a firewall's drop, as the API's listener has it).
   */
  readonly refuse?: (peer: string) => string | undefined;
}

export interface RestServer {
  readonly host: string;
  readonly port: number;
  /** TLS connections accepted so far (a client that keeps its connection alive opens one). */
  readonly connections: number;
  close(): Promise<void>;
  /** Ends every connection, an answer on its way included, but keeps listening: a management path that dropped. */
  dropSessions(): void;
}

/** `user:password` of a basic Authorization header; undefined when there is none or it is malformed. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

class BodyTooLarge {}

async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(
  response: ServerResponse,
  answer: RestResponse,
  extraHeaders: Record<string, string> = {},
): void {
  if (response.writableEnded || response.destroyed) return;
  if (answer.body === undefined) {
    response.writeHead(answer.status, extraHeaders).end();
    return;
  }
  const text = JSON.stringify(answer.body);
  response
    .writeHead(answer.status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      ...extraHeaders,
    })
    .end(text);
}

export async function startRestServer(options: RestServerOptions): Promise<RestServer> {
  const deadlineMs = options.deadlineMs ?? 60_000;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const sockets = new Set<Socket>();
  let connections = 0;

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "https://router");
    const credentials = basicCredentials(request.headers.authorization);
    const accepted =
      credentials !== undefined && (await options.authenticate(credentials.user, credentials.password));
    if (!credentials || !accepted) {
      request.resume();
      return send(response, restError(401), { "www-authenticate": 'Basic realm="RouterOS"' });
    }
    // Outside `/rest` a router serves WebFig, which this one has not.
    if (url.pathname !== "/rest" && !url.pathname.startsWith("/rest/")) {
      request.resume();
      return send(response, restError(404));
    }
    let raw: Buffer;
    try {
      raw = await readBody(request, maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        send(response, restError(413, `the body is larger than ${maxBodyBytes} bytes`));
        return request.destroy();
      }
      return;
    }
    let body: unknown;
    if (raw.length > 0) {
      const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
      if (type !== "application/json") return send(response, restError(415));
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch (error) {
        return send(response, restError(400, `the body is not JSON: ${(error as Error).message}`));
      }
    }
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new Error("Session closed")), deadlineMs);
    // The client gave up: its command stops as an API command stops when its session ends.
    response.once("close", () => controller.abort(new Error("client closed the connection")));
    try {
      const answer = await options.handler({
        method: request.method ?? "GET",
        path: decodePath(url.pathname.slice("/rest".length)),
        query: [...url.searchParams],
        body,
        user: credentials.user,
        signal: controller.signal,
      });
      send(response, answer);
    } finally {
      clearTimeout(deadline);
    }
  };

  const { refuse } = options;
  const server = createServer({ cert: options.tls.cert, key: options.tls.key }, (request, response) => {
    if (refuse?.(clientAddress(request.socket.remoteAddress)) !== undefined) return request.socket.destroy();
    serve(request, response).catch(() => send(response, restError(500)));
  });
  if (refuse)
    server.on("connection", (raw: Socket) => refuse(clientAddress(raw.remoteAddress)) && raw.destroy());
  server.headersTimeout = DEFAULT_SERVER_TIMEOUTS.headersTimeoutMs;
  server.requestTimeout = DEFAULT_SERVER_TIMEOUTS.requestTimeoutMs;
  server.keepAliveTimeout = DEFAULT_SERVER_TIMEOUTS.keepAliveTimeoutMs;
  // A socket quiet while its command runs must outlive the deadline, so that the client hears `Session closed`.
  server.timeout = deadlineMs + 5_000;
  server.on("secureConnection", (socket: Socket) => {
    sockets.add(socket);
    connections++;
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the REST server has no TCP address");
  return {
    host: address.address,
    port: address.port,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
    dropSessions: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** `%2A1` is `*1`; a malformed escape is kept as written, so it names no item rather than failing. */
function decodePath(path: string): string {
  return path
    .split("/")
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join("/");
}
