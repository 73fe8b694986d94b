/**
 * The real routerjobs service (test/service/harness.ts) behind a front that records every request and, on
 * demand, answers instead of it: slow, dropped, hung, malformed or Laravel-shaped answers, which the service
 * never gives. Whatever is not scripted reaches the service as it was sent, and its answer comes back as it
 * was given, so the client is tested against the service's real behaviour and its misbehaviour alike.
 */
import { randomUUID } from "node:crypto";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";
import { ROUTER_A, ROUTER_B, startTestService, type TestService, TOKEN_A } from "../../service/harness.js";

/** A router of the token's team. */
export const ROUTER_ID = ROUTER_A;
/** Another team's router: the service answers it as unknown. */
export const OTHER_ROUTER_ID = ROUTER_B;
export const TOKEN = TOKEN_A;

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
  readonly at: number;
}

/** One scripted answer, given instead of the service's to the next request. */
export type Scripted =
  | {
      readonly status: number;
      readonly headers?: Record<string, string>;
      readonly body?: unknown;
      readonly delayMs?: number;
    }
  | { readonly drop: true }
  | { readonly hang: true };

export interface StandInOptions {
  /** The front's certificate: HTTPS with it, plain HTTP without. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** The service's own sliding-window limit. @default far above what any test sends */
  readonly rateLimit?: { readonly count: number; readonly windowMs: number };
  readonly port?: number;
}

export interface StandIn {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** Arrival times of the requests the service's limiter let through. */
  readonly accepted: number[];
  readonly counts: { rateLimited: number };
  /** The service behind the front. */
  readonly service: TestService;
  script(...answers: Scripted[]): void;
  close(): Promise<void>;
}

export async function startStandIn(options: StandInOptions = {}): Promise<StandIn> {
  const service = await startTestService(options.rateLimit ? { rateLimit: options.rateLimit } : {});
  const toService = new Agent(service.service.ca ? { connect: { ca: service.service.ca } } : {});
  const requests: RecordedRequest[] = [];
  const accepted: number[] = [];
  const counts = { rateLimited: 0 };
  const queue: Scripted[] = [];

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const at = Date.now();
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, at });
    const scripted = queue.shift();
    if (scripted) return answerScripted(req, res, scripted);
    const { host: _host, connection: _connection, ...headers } = req.headers;
    const answer = await request(`${service.url}${req.url ?? "/"}`, {
      method: (req.method ?? "GET") as "GET",
      headers: headers as Record<string, string>,
      ...(body === "" ? {} : { body }),
      dispatcher: toService,
    });
    const text = await answer.body.text();
    if (answer.statusCode === 429) counts.rateLimited++;
    else accepted.push(at);
    if (res.destroyed) return;
    const passed: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !["connection", "keep-alive", "transfer-encoding"].includes(name))
        passed[name] = value;
    res.writeHead(answer.statusCode, passed);
    res.end(text);
  };

  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handler)
    : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options.tls ? "https" : "http"}://${options.tls ? "localhost" : "127.0.0.1"}:${port}`,
    port,
    requests,
    accepted,
    counts,
    service,
    script: (...answers) => queue.push(...answers),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await toService.close();
      await service.close();
    },
  };
}

/** The service's error envelope, for scripted answers. */
export function envelope(code: string, message: string, details?: { field: string; message: string }[]) {
  return { status: "error", error: { code, message, ...(details ? { details } : {}) } };
}

async function answerScripted(req: IncomingMessage, res: ServerResponse, scripted: Scripted): Promise<void> {
  if ("drop" in scripted) {
    req.socket.destroy();
    return;
  }
  if ("hang" in scripted) return;
  if (scripted.delayMs) await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
  if (res.destroyed) return;
  const body = scripted.body;
  const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(scripted.status, {
    "content-type": "application/json",
    "x-request-id": randomUUID(),
    ...scripted.headers,
  });
  res.end(text);
}
