import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { json, notFound, type Reply, unauthenticated } from "./laravel.js";
import type { Team } from "./options.js";
import type { SlidingWindow } from "./rate-limit.js";

export interface RequestContext {
  siteId: string;
  /** The path's second capture group, where the route has one (a job's id). */
  jobId?: string;
  team: Team;
  headers: IncomingMessage["headers"];
  body: string;
  /** The request's query string. */
  query: URLSearchParams;
  /** `http(s)://host:port` as the client reached it: what Laravel's absolute links start with. */
  origin: string;
}
export interface Route {
  method: string;
  /** Its first capture group is the site (router) id; a second, if any, the job's id. */
  path: RegExp;
  handle(context: RequestContext): Reply | Promise<Reply>;
}
export interface LoggedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  status: number;
}
export interface ServerSetup {
  routes: Route[];
  teams: Team[];
  limiter: SlidingWindow;
  retryAfterHeader: boolean;
  tls?: { key: string; cert: string };
  onRequest(entry: LoggedRequest): void;
}

const MAX_BODY_BYTES = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Laravel's order: the route first (404), then authentication (401), throttling (429), the site (404). */
async function dispatch(setup: ServerSetup, req: IncomingMessage): Promise<Reply> {
  // Read the body first in every case, so that an early answer never leaves a request half read.
  const body = await readBody(req);
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  const matching = setup.routes.filter((route) => route.path.test(path));
  if (matching.length === 0) return notFound();
  const route = matching.find((candidate) => candidate.method === req.method);
  if (!route) return json(405, { message: `The ${req.method} method is not supported for this route.` });
  if (body === undefined) return json(413, { message: "Content Too Large" });

  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  const team = setup.teams.find((candidate) => bearer !== undefined && candidate.tokens.includes(bearer));
  if (!team || bearer === undefined) return unauthenticated();

  const budget = setup.limiter.take(bearer);
  const rateHeaders: Record<string, string> = {
    "X-RateLimit-Limit": String(setup.limiter.max),
    "X-RateLimit-Remaining": String(budget.remaining),
  };
  if (!budget.granted) {
    if (setup.retryAfterHeader) rateHeaders["Retry-After"] = String(budget.retryAfterS);
    return json(429, { message: "Too Many Attempts." }, rateHeaders);
  }
  const captures = route.path.exec(path) ?? [];
  const siteId = decodeURIComponent(captures[1] ?? "");
  if (!team.sites.includes(siteId)) return json(404, { message: "Not Found." }, rateHeaders);
  const jobId = captures[2] === undefined ? {} : { jobId: decodeURIComponent(captures[2]) };
  const query = new URLSearchParams((req.url ?? "").split("?")[1] ?? "");
  const origin = `${setup.tls ? "https" : "http"}://${req.headers.host ?? "localhost"}`;
  const reply = await route.handle({ siteId, ...jobId, team, headers: req.headers, body, query, origin });
  return { ...reply, headers: { ...rateHeaders, ...reply.headers } };
}

export function createStandInServer(setup: ServerSetup) {
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    dispatch(setup, req)
      .catch(() => json(500, { message: "Server Error" }))
      .then((reply) => {
        const { authorization: _secret, ...headers } = req.headers;
        setup.onRequest({ method: req.method ?? "", path: req.url ?? "", headers, status: reply.status });
        // 204 carries no body (and so no type).
        if (reply.status === 204) {
          res.writeHead(204, reply.headers ?? {});
          res.end();
          return;
        }
        if (reply.text !== undefined) {
          res.writeHead(reply.status, { "content-type": "text/plain; charset=utf-8", ...reply.headers });
          res.end(reply.text);
          return;
        }
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify(reply.body));
      });
  };
  return setup.tls ? createHttpsServer(setup.tls, listener) : createHttpServer(listener);
}
