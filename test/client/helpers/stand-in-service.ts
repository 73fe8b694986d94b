/**
 * A stand-in for the routerjobs service, speaking CONTRACT.md over real HTTP(S) on loopback. Another helper is
 * writing the real service at the same time; tests against it come later. This one also misbehaves on demand
 * (scripted answers: slow, dropped, malformed, Laravel-shaped), which the real service never does.
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

export const ROUTER_ID = "6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f";
export const OTHER_ROUTER_ID = "0a0b0c0d-0e0f-4a1b-8c2d-3e4f5a6b7c8d";
export const TOKEN = `11111111-2222-4333-8444-555555555555:66666666-7777-4888-9999-aaaaaaaaaaaa:${"S3cr3t".repeat(10)}xy`;

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
  readonly at: number;
}

/** One scripted answer, used instead of the contract's behaviour for the next request. */
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
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Sliding-window limit, as the contract's service applies it; none when absent. */
  readonly rateLimit?: { readonly count: number; readonly windowMs: number };
  readonly port?: number;
}

export interface StandIn {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** Arrival times of the requests the limiter accepted. */
  readonly accepted: number[];
  readonly counts: { rateLimited: number };
  script(...answers: Scripted[]): void;
  close(): Promise<void>;
}

const JOB_EXTRAS = { seq_id: 1, vendor_field: { nested: true } };

export async function startStandIn(options: StandInOptions = {}): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  const accepted: number[] = [];
  const counts = { rateLimited: 0 };
  const queue: Scripted[] = [];
  const jobs: Record<string, unknown>[] = [];
  const acks = new Map<string, { body: string; ack: Record<string, unknown> }>();

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const at = Date.now();
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, at });

    const scripted = queue.shift();
    if (scripted) return answerScripted(req, res, scripted);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      return send(res, 401, envelope("unauthenticated", "The API token is missing or not valid."), {
        "www-authenticate": "Bearer",
      });
    }
    if (options.rateLimit) {
      const { count, windowMs } = options.rateLimit;
      while (accepted.length > 0 && (accepted[0] as number) <= at - windowMs) accepted.shift();
      if (accepted.length >= count) {
        counts.rateLimited++;
        const retryAfter = Math.max(1, Math.ceil(((accepted[0] as number) + windowMs - at) / 1000));
        return send(res, 429, envelope("rate_limited", "Too many requests."), {
          "retry-after": String(retryAfter),
        });
      }
      accepted.push(at);
    }
    return route(req.method ?? "", req.url ?? "", body, req.headers, res);
  };

  const route = (
    method: string,
    url: string,
    body: string,
    headers: IncomingMessage["headers"],
    res: ServerResponse,
  ) => {
    const match = /^\/api\/(synchronous|asynchronous|routers)\/([^/]+)(\/jobs)?$/.exec(url);
    if (!match) return send(res, 404, envelope("not_found", `No route ${url}.`));
    const [, kind, routerId, jobsSuffix] = match;
    if (routerId !== ROUTER_ID) return send(res, 404, envelope("router_not_found", "No such router."));
    if (kind === "routers" && jobsSuffix && method === "GET")
      return send(res, 200, { status: "success", data: jobs });
    if (method !== "POST" || jobsSuffix)
      return send(res, 405, envelope("method_not_allowed", "Method not allowed."));
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return send(res, 400, envelope("invalid_json", "The body is not valid JSON."));
    }
    if (kind === "synchronous") {
      if (json.command === "/fail")
        return send(res, 400, envelope("command_failed", "failure: already have such address"));
      return send(res, 200, {
        status: "success",
        data: [{ id: "*1", address: "10.0.0.1", interface: "ether1", dynamic: "false", extra: 7 }],
      });
    }
    const key = String(headers["idempotency-key"] ?? randomUUID());
    const seen = acks.get(key);
    if (seen && seen.body !== body)
      return send(res, 409, envelope("idempotency_conflict", "Key reused with another body."));
    if (seen) return send(res, 202, { status: "success", data: seen.ack });
    const ack = {
      idempotency_key: key,
      request_id: randomUUID(),
      target: ROUTER_ID,
      notify_url: json.notify_url ?? null,
      date: new Date().toISOString().replace("Z", "+00:00"),
      queue_position: 1,
    };
    acks.set(key, { body, ack });
    jobs.unshift({
      id: randomUUID(),
      token: "t0k",
      idempotency_key: key,
      description: json.description,
      express_execute: json.express_execute,
      needs_acknowledgement: json.needs_acknowledgement,
      make_backup: json.make_backup,
      started_at: null,
      completed_at: null,
      failed_at: null,
      deleted_at: null,
      status: jobs.length === 0 ? "pending" : "quarantined",
      ...JOB_EXTRAS,
      seq_id: jobs.length + 1,
    });
    return send(res, 202, { status: "success", data: ack });
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
    script: (...answers) => queue.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

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
  send(res, scripted.status, scripted.body, scripted.headers);
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "x-request-id": randomUUID(), ...headers });
  res.end(text);
}
