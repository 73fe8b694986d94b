import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy for loopback tests that breaks connections on purpose, as Toxiproxy does, without an external
 * binary (NOTES.md). It works below TLS, so HTTPS passes through unchanged.
 *
 * Faults strike exchanges: an exchange is what the client sends until the server answers, plus that answer,
 * so a kept-alive connection meets a fault at its next request as a new one does. That is HTTP/1.1 without
 * pipelining; under TLS the handshake's round trips are exchanges too, so "the answer" may be the handshake.
 */
export interface Fault {
  /** Reset before passing anything on (a new connection: refused; a kept-alive one: cut before the request). */
  readonly refuse?: boolean;
  /** Let the request through, then reset the client's connection as the answer starts: "sent, no answer". */
  readonly resetOnResponse?: boolean;
  /** Pass this many bytes of the answer, then close: a truncated answer. */
  readonly truncateResponseAfterBytes?: number;
  /** Hold every chunk, both ways, this long before passing it on: a slow or distant link. */
  readonly delayMs?: number;
  /**
   * Swallow every byte both ways and never answer nor close, as a firewall that drops packets does: the peer
   * finds out only through its own timeouts. The connection stays swallowed after the faults change (its
   * bytes are lost).
   */
  readonly blackhole?: boolean;
}

/** A fault and which exchanges it strikes. */
export interface Faults extends Fault {
  /** Strike only this many exchanges, then pass the rest untouched. @default every exchange */
  readonly times?: number;
  /** Strike only every Nth exchange. @default 1 */
  readonly everyNth?: number;
}

/** Chooses each exchange's fault (`{}` for none): random faults from a seeded PRNG, say. */
export type FaultPicker = () => Fault;

interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
  fault: Fault;
  /** Bytes of the current answer passed on so far; -1 until the answer starts. */
  answered: number;
  swallowed: boolean;
}

export class FaultProxy {
  /**
   * Connections and exchanges the proxy saw, how many exchanges a fault broke (delays break nothing), and how
   * many it held back by a delay.
   */
  readonly stats = { connections: 0, exchanges: 0, broken: 0, delayed: 0 };
  #faults: Faults | FaultPicker = {};
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

  /** The faults of the next exchanges: one fault (`{}` passes everything), or a picker asked per exchange. */
  set(faults: Faults | FaultPicker): void {
    this.#faults = faults;
    this.#remaining = (typeof faults === "function" ? undefined : faults.times) ?? Number.POSITIVE_INFINITY;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #nextFault(): Fault {
    this.stats.exchanges++;
    if (typeof this.#faults === "function") return this.#faults();
    if (this.#remaining <= 0 || this.stats.exchanges % (this.#faults.everyNth ?? 1) !== 0) return {};
    this.#remaining--;
    return this.#faults;
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
    socket.on("error", () => {});
  }

  #handle(client: Socket, target: { host: string; port: number }): void {
    this.stats.connections++;
    this.#track(client);
    const fault = this.#nextFault();
    if (fault.refuse) {
      this.stats.broken++;
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(target);
    this.#track(upstream);
    const link: Link = { client, upstream, fault: {}, answered: -1, swallowed: false };
    this.#strike(link, fault);
    const toUpstream = delayed(upstream);
    const toClient = delayed(client);
    // A side that closes closes the other once what is held for it has passed; a black hole passes no close.
    upstream.on("close", () => {
      if (!link.swallowed) toClient.afterQueued(() => client.end());
    });
    client.on("close", () => toUpstream.afterQueued(() => upstream.destroy()));
    client.on("data", (chunk: Buffer) => {
      // The client speaking after an answer started begins the next exchange.
      if (link.answered !== -1 && !link.swallowed && !this.#strike(link, this.#nextFault())) return;
      if (!link.swallowed) toUpstream.write(chunk, link.fault.delayMs);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!link.swallowed) this.#answer(link, chunk, toClient);
    });
  }

  /** Starts an exchange with `fault`, applying what strikes before the request; false when that cut the link. */
  #strike(link: Link, fault: Fault): boolean {
    link.fault = fault;
    link.answered = -1;
    if (fault.delayMs) this.stats.delayed++;
    if (fault.blackhole) {
      this.stats.broken++;
      link.swallowed = true;
    } else if (fault.refuse) {
      this.stats.broken++;
      link.client.resetAndDestroy();
      link.upstream.destroy();
      return false;
    }
    return true;
  }

  #answer(link: Link, chunk: Buffer, toClient: Delayed): void {
    const { fault } = link;
    const answered = Math.max(0, link.answered);
    if (fault.resetOnResponse) {
      this.stats.broken++;
      link.client.resetAndDestroy();
      link.upstream.destroy();
      return;
    }
    const limit = fault.truncateResponseAfterBytes;
    if (limit !== undefined && answered + chunk.length > limit) {
      this.stats.broken++;
      toClient.write(chunk.subarray(0, Math.max(0, limit - answered)), fault.delayMs);
      toClient.afterQueued(() => link.client.end());
      link.upstream.destroy();
      return;
    }
    link.answered = answered + chunk.length;
    toClient.write(chunk, fault.delayMs);
  }
}

interface Delayed {
  write(chunk: Buffer, delayMs: number | undefined): void;
  /** Runs `next` once every chunk written so far has been passed on. */
  afterQueued(next: () => void): void;
}

/** One direction of a link: chunks pass in order, each no sooner than its delay after it arrived. */
function delayed(to: Socket): Delayed {
  const queue: { due: number; run: () => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let last = 0;
  const drain = () => {
    timer = undefined;
    while (queue.length > 0 && (queue[0] as { due: number }).due <= performance.now()) queue.shift()?.run();
    const head = queue[0];
    if (head) timer = setTimeout(drain, head.due - performance.now());
  };
  const push = (run: () => void) => {
    queue.push({ due: last, run });
    if (!timer) drain();
  };
  return {
    write(chunk, delayMs = 0) {
      last = Math.max(last, performance.now() + delayMs);
      push(() => {
        if (!to.destroyed) to.write(chunk);
      });
    },
    afterQueued: push,
  };
}
