import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { generateLocalTls } from "../../src/platform/tls/certificates.js";
import { waitFor } from "./wait-for.js";

export interface ReceivedNotification {
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Record<string, unknown>;
  readonly raw: string;
  readonly at: number;
}

/**
 * A real HTTPS receiver for notifications (local CA from src/platform/tls). It records every accepted POST and can be
 * told to answer 503 to the next N requests, or to a given job, to exercise retries.
 */
export class HttpsSink {
  readonly received: ReceivedNotification[] = [];
  /** Every request, failed ones included, in arrival order. */
  readonly attempts: { path: string; status: number; body: Record<string, unknown> }[] = [];
  private failures = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly ca: string,
  ) {}

  static async start(): Promise<HttpsSink> {
    const tls = await generateLocalTls();
    let sink: HttpsSink | undefined;
    const server = createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () =>
        sink?.record(request.url ?? "/", request.headers, Buffer.concat(chunks).toString(), response),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    sink = new HttpsSink(server, `https://127.0.0.1:${port}`, tls.ca);
    return sink;
  }

  private record(
    path: string,
    headers: ReceivedNotification["headers"],
    raw: string,
    response: import("node:http").ServerResponse,
  ): void {
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // recorded as an empty body; the test that cares asserts on `raw`
    }
    const status = this.failures > 0 ? 503 : 204;
    if (this.failures > 0) this.failures--;
    this.attempts.push({ path, status, body });
    if (status === 204) this.received.push({ path, headers, body, raw, at: Date.now() });
    response.writeHead(status).end();
  }

  /** The next `count` requests are answered 503. */
  failNext(count: number): void {
    this.failures = count;
  }

  /** Statuses received for one job, in arrival order. */
  statuses(jobId: string): string[] {
    return this.received.filter((item) => item.body.job_id === jobId).map((item) => String(item.body.status));
  }

  /** Waits until `predicate` holds over the received notifications. */
  async waitFor(
    predicate: (received: readonly ReceivedNotification[]) => boolean,
    timeoutMs?: number,
  ): Promise<void> {
    await waitFor(() => predicate(this.received), {
      what: "the notifications awaited",
      timeoutMs,
      detail: () => JSON.stringify(this.received.map((item) => [item.body.job_id, item.body.status])),
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
