/**
 * A loopback HTTPS proxy in front of a job service that can hold a job's submission: a test double for a
 * network that loses the request before it reaches the service, or loses the service's answer after the job
 * was created. Every other request passes through untouched. It terminates TLS with its own certificate (the
 * client trusts `ca`) and talks TLS to the service, so it works the same in front of any service.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";
import { loopbackCertificate } from "../standin/tls.js";

/** Where a submission stops: before the service sees it, or after the service answered it. */
export type Hold = "request" | "answer";

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  /** Whether it reached the service. */
  readonly forwarded: boolean;
}

export interface SubmissionGate {
  readonly url: string;
  readonly ca: string;
  close(): Promise<void>;
  /** From now on, hold every submission at `where` until `open()`. */
  hold(where: Hold): void;
  /** Resolves once a submission to `routerId` is held. */
  held(routerId: string): Promise<void>;
  /** Stops holding: held requests are dropped (their client is gone), held answers are sent. */
  open(): void;
  requests(): readonly SeenRequest[];
}

/** A job submission in either API: `POST /api/asynchronous/{router}` or `POST /api/sites/{site}/jobs`. */
const submissionTo = (method: string, path: string): string | undefined =>
  method === "POST"
    ? /^\/api\/(?:asynchronous\/([^/?]+)|sites\/([^/?]+)\/jobs)/.exec(path)?.slice(1).find(Boolean)
    : undefined;

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "host", "content-length"]);

export async function startSubmissionGate(upstream: { url: string; ca: string }): Promise<SubmissionGate> {
  const certificate = await loopbackCertificate();
  const dispatcher = new Agent({ connect: { ca: upstream.ca } });
  const seen: SeenRequest[] = [];
  let holding: Hold | undefined;
  const heldRouters: string[] = [];
  const waiters: { routerId: string; resolve: () => void }[] = [];
  const parked: (() => void)[] = [];

  const park = (routerId: string): Promise<void> =>
    new Promise((resume) => {
      parked.push(resume);
      heldRouters.push(routerId);
      for (const waiter of waiters.filter((w) => w.routerId === routerId)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const method = incoming.method ?? "GET";
    const path = incoming.url ?? "/";
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const routerId = submissionTo(method, path);
    const where = routerId === undefined ? undefined : holding;
    if (where === "request" && routerId !== undefined) {
      await park(routerId);
      // Opened after the client was killed: the request is lost, as on a network that dropped it.
      seen.push({ method, path, forwarded: false });
      outgoing.destroy();
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const answer = await request(`${upstream.url}${path}`, {
      method: method as "GET",
      headers,
      dispatcher,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = Buffer.from(await answer.body.arrayBuffer());
    seen.push({ method, path, forwarded: true });
    if (where === "answer" && routerId !== undefined) await park(routerId);
    const answerHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (typeof value === "string" || Array.isArray(value)) {
        if (!HOP_BY_HOP.has(name)) answerHeaders[name] = value;
      }
    }
    outgoing.writeHead(answer.statusCode, answerHeaders);
    outgoing.end(body);
  }

  const server = createServer({ key: certificate.key, cert: certificate.cert }, (incoming, outgoing) => {
    handle(incoming, outgoing).catch(() => outgoing.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const open = () => {
    holding = undefined;
    for (const resume of parked.splice(0)) resume();
  };
  return {
    url: `https://127.0.0.1:${port}`,
    ca: certificate.cert,
    hold: (where) => {
      holding = where;
    },
    held: (routerId) =>
      new Promise((resolve) => {
        if (heldRouters.includes(routerId)) resolve();
        else waiters.push({ routerId, resolve });
      }),
    open,
    requests: () => [...seen],
    close: async () => {
      open();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.close();
    },
  };
}
