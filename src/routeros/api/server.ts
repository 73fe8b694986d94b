/**
 * A RouterOS API server (TCP, or TLS as api-ssl): sentence framing, `/login`, tags, `/cancel`, `/quit`, and
 * `!fatal` for bytes that break the protocol. Every other command sentence goes to the caller's handler, which
 * may stream records until it returns or its signal aborts (`/cancel`). It knows nothing of what a command
 * means: a simulated router (`src/routeros/simulator/adapters/api-front-end.ts`) or a test supplies that.
 *
 * Replies follow RouterOS: `/cancel =tag=X` answers the cancelled command with
 * `!trap =category=2 =message=interrupted` and `!done`, then `!done` for itself; `!empty` precedes `!done`
 * when the handler says there were no records.
 */

import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { formatDuration, type RateLimit } from "../../contract/duration.js";
import { RouterjobsError } from "../../errors.js";
import { MemoryRateLimiter } from "../../platform/sliding-window.js";
import { isForeignProtocol } from "./foreign-protocol.js";
import { parseSentence, replyWords } from "./sentence.js";
import { encodeSentence, SentenceDecoder } from "./words.js";

/** What a handler throws to answer `!trap`: the router's text and, when RouterOS gives one, its category. */
export class ApiTrap extends RouterjobsError {
  override readonly name = "ApiTrap";
  override readonly code = "RJ_ERR_COMMAND_FAILED";
  constructor(
    message: string,
    readonly category?: number,
  ) {
    super(message);
  }
}

export interface ApiCommand {
  /** `/ip/address/print` */
  readonly path: string;
  /** `=name=value` words (`.proplist` is apart). */
  readonly attributes: ReadonlyMap<string, string>;
  readonly proplist?: readonly string[];
  /** `?...` words in order. */
  readonly queries: readonly string[];
  readonly tag?: string;
  readonly user: string;
  /** Aborts on `/cancel` of this command and when the connection ends. */
  readonly signal: AbortSignal;
  /** Sends one `!re`; does nothing once the command is cancelled. */
  record(attributes: Readonly<Record<string, string>>): void;
}

export interface HandlerResult {
  /** Attributes of `!done` (`ret`). */
  readonly done?: Readonly<Record<string, string>>;
  /** Send `!empty` before `!done` (RouterOS 7.18+ does when a print finds nothing). */
  readonly empty?: boolean;
}

export type CommandHandler = (
  command: ApiCommand,
) => Promise<HandlerResult | undefined> | HandlerResult | undefined;

export interface RouterApiServerOptions {
  readonly host?: string;
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** PEM certificate and key: api-ssl. Without them, plain TCP (api). */
  readonly tls?: { readonly cert: string; readonly key: string };
  authenticate(user: string, password: string): boolean | Promise<boolean>;
  readonly handler: CommandHandler;
  /** @default 1 MiB */
  readonly maxSentenceBytes?: number;
  /** A connection that has not logged in by then gets `!fatal` and is closed. @default 10 s */
  readonly loginTimeoutMs?: number;
  /**
   * A sentence begun must be complete within this, from its first byte: a client that sends half a word and
   * waits holds its connection no longer. @default 30 s
   */
  readonly sentenceTimeoutMs?: number;
  /**
   * Failed logins per client address. One failure more within the window blocks the address until the window
   * would admit one again: its logins are refused without a look at the password, and their connections
   * closed. @default 5 per 60 s
   */
  readonly loginFailures?: RateLimit;
  /**
   * Why the router's configuration keeps a client address out now, or undefined to answer it. A refused
   * address's new connections are reset before any byte is read, and a session of it is reset at its next
   * sentence: what the client sees of a firewall that drops it (a timeout on a real link, a reset here).
   */
  readonly refuse?: (peer: string) => string | undefined;
}

export interface RouterApiServer {
  readonly host: string;
  readonly port: number;
  /** Stops listening and ends every session (their commands see their signal abort). */
  close(): Promise<void>;
  /** Ends every session but keeps listening: a management path that dropped for a moment. */
  dropSessions(): void;
}

/** RouterOS's own text for a refused login. */
export const LOGIN_REFUSED = "invalid user name or password (6)";

/** The text of a login refused because its address failed too often (RouterOS has none of its own). */
export const loginThrottled = (retryAfterSeconds: number, limit: RateLimit): string =>
  `too many failed logins from this address (more than ${limit.count} per ${formatDuration(limit.windowMs)}); retry in ${retryAfterSeconds} s`;

/**
 * Failed logins per client address, in the service's sliding-window log: a failure the log refuses blocks the
 * address until the log would take one again.
 */
class LoginThrottle {
  private readonly failures: MemoryRateLimiter;
  private readonly blockedUntil = new Map<string, number>();

  constructor(readonly limit: RateLimit) {
    this.failures = new MemoryRateLimiter(limit);
  }

  /** Seconds the address must still wait, or undefined when it may try a password. */
  blocked(address: string, now = Date.now()): number | undefined {
    const until = this.blockedUntil.get(address);
    if (until === undefined) return undefined;
    if (until > now) return Math.max(1, Math.ceil((until - now) / 1000));
    this.blockedUntil.delete(address);
    return undefined;
  }

  async failed(address: string, now = Date.now()): Promise<void> {
    const decision = await this.failures.take(address, now);
    if (!decision.allowed) this.blockedUntil.set(address, now + (decision.retryAfterSeconds ?? 1) * 1000);
  }

  close(): void {
    this.failures.close();
  }
}

export async function startRouterApiServer(options: RouterApiServerOptions): Promise<RouterApiServer> {
  const sockets = new Set<Socket>();
  const throttle = new LoginThrottle(options.loginFailures ?? { count: 5, windowMs: 60_000 });
  const onSocket = (socket: Socket) => {
    sockets.add(socket);
    // A reply is several small sentences (`!re`..., `!done`): without this, Nagle holds the last one back.
    socket.setNoDelay(true);
    socket.once("close", () => sockets.delete(socket));
    serveSession(socket, options, throttle);
  };
  const server: Server = options.tls
    ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, onSocket)
    : createTcpServer(onSocket);
  const { refuse } = options;
  // Before the TLS handshake: a dropped client gets no certificate either.
  if (refuse) server.on("connection", (raw: Socket) => refuse(peerAddress(raw)) && raw.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the API server has no TCP address");
  return {
    host: address.address,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        throttle.close();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
    dropSessions: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** The client's IPv4 address as the router's firewall sees it (not the IPv4-mapped form of a dual stack). */
export const clientAddress = (remote: string | undefined) => (remote ?? "").replace(/^::ffff:/, "");
const peerAddress = (socket: Socket) => clientAddress(socket.remoteAddress);

function serveSession(socket: Socket, options: RouterApiServerOptions, throttle: LoginThrottle): void {
  const decoder = new SentenceDecoder({ maxSentenceBytes: options.maxSentenceBytes ?? 1024 * 1024 });
  const address = peerAddress(socket);
  const loginTimeoutMs = options.loginTimeoutMs ?? 10_000;
  const sentenceTimeoutMs = options.sentenceTimeoutMs ?? 30_000;
  const running = new Map<string, { controller: AbortController; tag?: string }>();
  let user: string | undefined;
  let untagged = 0;
  let gate: Promise<void> = Promise.resolve();
  const send = (words: string[]) => {
    if (socket.writable) socket.write(encodeSentence(words));
  };
  const fatal = (reason: string) => {
    send(["!fatal", reason]);
    socket.end();
  };
  /** `!fatal`, then the connection is gone once it is written, whether or not the client ever closes its end. */
  const drop = (reason: string) => {
    send(["!fatal", reason]);
    socket.destroySoon();
  };
  const loginTimer = setTimeout(() => {
    if (user === undefined) drop(`not logged in within ${formatDuration(loginTimeoutMs)}`);
  }, loginTimeoutMs);
  let sentenceTimer: NodeJS.Timeout | undefined;
  const sentenceStarted = () => {
    clearTimeout(sentenceTimer);
    sentenceTimer = setTimeout(
      () => drop(`a sentence was not completed within ${formatDuration(sentenceTimeoutMs)}`),
      sentenceTimeoutMs,
    );
  };
  const finishCancelled = (key: string) => {
    const entry = running.get(key);
    if (!entry) return;
    running.delete(key);
    entry.controller.abort(new ApiTrap("interrupted", 2));
    send(replyWords("!trap", { category: "2", message: "interrupted" }, entry.tag));
    send(replyWords("!done", {}, entry.tag));
  };

  const dispatch = async (words: Buffer[]) => {
    if (options.refuse?.(address) !== undefined) {
      socket.destroy();
      return;
    }
    const sentence = parseSentence(words);
    const { head, tag } = sentence;
    if (head === "/login") {
      const wait = throttle.blocked(address);
      if (wait !== undefined) {
        send(replyWords("!trap", { message: loginThrottled(wait, throttle.limit) }, tag));
        send(replyWords("!done", {}, tag));
        return socket.destroySoon();
      }
      const name = sentence.attributes.get("name") ?? "";
      const accepted = await options.authenticate(name, sentence.attributes.get("password") ?? "");
      if (accepted) {
        user = name;
        clearTimeout(loginTimer);
      } else {
        await throttle.failed(address);
        send(replyWords("!trap", { message: LOGIN_REFUSED }, tag));
      }
      return send(replyWords("!done", {}, tag));
    }
    if (user === undefined) return fatal("not logged in");
    if (head === "/quit") return fatal("session terminated on request");
    if (head === "/cancel") {
      const target = sentence.attributes.get("tag");
      if (target === undefined) for (const key of [...running.keys()]) finishCancelled(key);
      else if (running.has(`t:${target}`)) finishCancelled(`t:${target}`);
      else send(replyWords("!trap", { category: "0", message: "no such command or it has finished" }, tag));
      return send(replyWords("!done", {}, tag));
    }
    const key = tag === undefined ? `u:${untagged++}` : `t:${tag}`;
    if (sentence.bare.length > 0) {
      send(replyWords("!trap", { category: "1", message: `unknown parameter ${sentence.bare[0]}` }, tag));
      return send(replyWords("!done", {}, tag));
    }
    if (running.has(key)) {
      send(replyWords("!trap", { message: `tag ${tag} is already in use` }, tag));
      return send(replyWords("!done", {}, tag));
    }
    const controller = new AbortController();
    running.set(key, { controller, ...(tag === undefined ? {} : { tag }) });
    const live = () => running.get(key)?.controller === controller;
    const proplist = sentence.attributes.get(".proplist");
    const attributes = new Map(sentence.attributes);
    attributes.delete(".proplist");
    const command: ApiCommand = {
      path: head,
      attributes,
      ...(proplist === undefined ? {} : { proplist: proplist.split(",").filter(Boolean) }),
      queries: sentence.queries,
      ...(tag === undefined ? {} : { tag }),
      user,
      signal: controller.signal,
      record: (record) => {
        if (live()) send(replyWords("!re", record, tag));
      },
    };
    // Not awaited: commands run side by side; only their start is in the order they arrived.
    void runHandler(command, key, live);
  };

  const runHandler = async (command: ApiCommand, key: string, live: () => boolean) => {
    const { tag } = command;
    let result: HandlerResult | undefined;
    try {
      if (!command.path.startsWith("/")) throw new ApiTrap("no such command prefix", 0);
      result = await options.handler(command);
    } catch (error) {
      if (!live()) return;
      running.delete(key);
      const trap =
        error instanceof ApiTrap ? error : new ApiTrap("internal error of the simulated device", 4);
      const category: Record<string, string> =
        trap.category === undefined ? {} : { category: String(trap.category) };
      send(replyWords("!trap", { ...category, message: trap.message }, tag));
      return send(replyWords("!done", {}, tag));
    }
    if (!live()) return;
    running.delete(key);
    if (result?.empty) send(replyWords("!empty", {}, tag));
    send(replyWords("!done", result?.done ?? {}, tag));
  };

  let firstChunk = true;
  socket.on("data", (chunk: Buffer) => {
    if (firstChunk) {
      firstChunk = false;
      // HTTP or TLS at this port: closed now, not after the login deadline (foreign-protocol.ts).
      if (isForeignProtocol(chunk)) return socket.destroy();
    }
    const wasMidSentence = decoder.midSentence;
    let sentences: Buffer[][];
    try {
      sentences = decoder.push(chunk);
    } catch (error) {
      return fatal((error as Error).message);
    }
    // The deadline runs from a sentence's first byte: kept while one stays unfinished, new when one begins.
    if (!decoder.midSentence) clearTimeout(sentenceTimer);
    else if (!wasMidSentence || sentences.length > 0) sentenceStarted();
    // One after another, so that a command sent right behind `/login` finds the session logged in.
    for (const words of sentences)
      gate = gate
        .then(() => dispatch(words))
        .catch(() => {
          socket.destroy();
        });
  });
  socket.on("error", () => socket.destroy());
  socket.on("close", () => {
    clearTimeout(loginTimer);
    clearTimeout(sentenceTimer);
    for (const { controller } of running.values()) controller.abort(new Error("connection closed"));
    running.clear();
  });
}
