import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy for loopback tests that breaks connections on purpose, as Toxiproxy does, without an external
 * binary (NOTES.md). It works below TLS, so HTTPS passes through unchanged; `resetOnResponse` reads "the first
 * bytes the server sends" as the response, which holds for plain HTTP only (under TLS they are the handshake).
 * Faults apply to the next connections; `set()` changes them between steps of a test.
 */
export interface Faults {
  /** Refuse connections outright (the peer sees a reset before anything is sent). */
  readonly refuse?: boolean;
  /** Let the request through, then reset the client's connection as the response starts: "sent, no answer". */
  readonly resetOnResponse?: boolean;
  /** Pass this many bytes of the response, then close: a truncated answer. */
  readonly truncateResponseAfterBytes?: number;
  /** Break only this many connections, then pass the rest untouched. @default every connection */
  readonly times?: number;
  /** Break only every Nth connection (deterministic "random" faults for soak runs). @default 1 */
  readonly everyNth?: number;
}

export class FaultProxy {
  /** Connections the proxy accepted, and how many of them a fault broke. */
  readonly stats = { connections: 0, broken: 0 };
  #faults: Faults = {};
  #remaining = Number.POSITIVE_INFINITY;
  readonly #sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    const server = createServer();
    const proxy = new FaultProxy(server);
    server.on("connection", (client) => proxy.#handle(client, target));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  set(faults: Faults): void {
    this.#faults = faults;
    this.#remaining = faults.times ?? Number.POSITIVE_INFINITY;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #handle(client: Socket, target: { host: string; port: number }): void {
    this.stats.connections++;
    const nth = this.#faults.everyNth ?? 1;
    const faults = this.#remaining > 0 && this.stats.connections % nth === 0 ? this.#faults : {};
    this.#remaining--;
    this.#sockets.add(client);
    client.on("close", () => this.#sockets.delete(client));
    client.on("error", () => {});
    if (faults.refuse) {
      this.stats.broken++;
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(target);
    this.#sockets.add(upstream);
    upstream.on("close", () => {
      this.#sockets.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    client.on("data", (chunk) => upstream.write(chunk));
    let passed = 0;
    upstream.on("data", (chunk: Buffer) => {
      if (faults.resetOnResponse) {
        this.stats.broken++;
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      const limit = faults.truncateResponseAfterBytes;
      if (limit !== undefined && passed + chunk.length > limit) {
        this.stats.broken++;
        client.end(chunk.subarray(0, Math.max(0, limit - passed)));
        upstream.destroy();
        return;
      }
      passed += chunk.length;
      client.write(chunk);
    });
  }
}
