/**
 * One connection to a router's API: `/login` (RouterOS >= 6.43), then commands, several in flight at once,
 * each under its own `.tag`. A command ends with `!done`; `!re` carries a record, `!empty` (7.18+) says there
 * are none, `!trap` makes the command fail with the router's text, `!fatal` ends the connection and fails
 * every command in flight. Aborting a command (its signal, its timeout, a reply over the limits) sends
 * `/cancel =tag=` so the router stops too, and fails the command at once; late replies are dropped.
 */
import type { Socket } from "node:net";
import {
  RouterApiConnectionError,
  RouterApiLoginError,
  RouterApiOptionsError,
  RouterApiProtocolError,
  RouterApiTimeoutError,
  RouterApiTrapError,
} from "./errors.js";
import { type CommandWords, commandWords, type ParsedSentence, parseSentence } from "./sentence.js";
import { openTransport, type TransportOptions } from "./transport.js";
import { encodeSentence, SentenceDecoder } from "./words.js";

export interface RouterApiClientOptions extends TransportOptions {
  readonly user: string;
  /** Sent once in `/login`; never part of an error or a log line. */
  readonly password: string;
  /** @default 10,000 */
  readonly loginTimeoutMs?: number;
  /** Per command, unless the command says otherwise. @default 60,000 */
  readonly commandTimeoutMs?: number;
  /** Records one reply may hold. @default 100,000 */
  readonly maxReplyRecords?: number;
  /** Bytes (of words) one reply may hold; also the largest word accepted. @default 16 MiB */
  readonly maxReplyBytes?: number;
  /** Commands in flight on this connection; one more is refused. @default 32 */
  readonly maxInFlight?: number;
}

export type ApiRecord = Record<string, string>;

export interface CommandOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /** Streams records here instead of collecting them (`/tool/ping`, `/interface/listen`). */
  readonly onRecord?: (record: ApiRecord) => void;
}

export interface CommandReply {
  /** The `!re` records (empty when `onRecord` took them). */
  readonly records: ApiRecord[];
  /** Attributes of `!done`, e.g. `ret` of `add` (the new `.id`) or of `/execute`. */
  readonly done: ApiRecord;
  /** The router said `!empty` (RouterOS 7.18+). */
  readonly empty: boolean;
}

interface Pending {
  readonly command: string;
  readonly records: ApiRecord[];
  bytes: number;
  empty: boolean;
  trap?: ParsedSentence;
  readonly onRecord: ((record: ApiRecord) => void) | undefined;
  resolve(reply: CommandReply): void;
  reject(error: unknown): void;
}

export class RouterApiClient {
  private readonly pending = new Map<string, Pending>();
  private readonly decoder: SentenceDecoder;
  private nextTag = 1;
  private closedBy: Error | undefined;
  private readonly maxReplyRecords: number;
  private readonly maxReplyBytes: number;
  private readonly maxInFlight: number;
  private readonly commandTimeoutMs: number;

  private constructor(
    private readonly socket: Socket,
    private readonly where: string,
    options: RouterApiClientOptions,
  ) {
    this.maxReplyRecords = options.maxReplyRecords ?? 100_000;
    this.maxReplyBytes = options.maxReplyBytes ?? 16 * 1024 * 1024;
    this.maxInFlight = options.maxInFlight ?? 32;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 60_000;
    this.decoder = new SentenceDecoder({
      maxWordBytes: this.maxReplyBytes,
      maxSentenceBytes: this.maxReplyBytes,
    });
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (error) =>
      this.fail(new RouterApiConnectionError(`connection to ${where} failed: ${error.message}`)),
    );
    socket.on("close", () => this.fail(new RouterApiConnectionError(`connection to ${where} closed`)));
  }

  /** Connects and logs in; throws `RouterApiLoginError` when the router refuses the user or password. */
  static async connect(options: RouterApiClientOptions): Promise<RouterApiClient> {
    for (const [name, value] of Object.entries({
      maxReplyRecords: options.maxReplyRecords,
      maxReplyBytes: options.maxReplyBytes,
      maxInFlight: options.maxInFlight,
    })) {
      if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
        throw new RouterApiOptionsError(`${name} must be a positive whole number (got ${value})`);
      }
    }
    const socket = await openTransport(options);
    const where = `${options.host}:${socket.remotePort ?? options.port}`;
    const client = new RouterApiClient(socket, where, options);
    const timeoutMs = options.loginTimeoutMs ?? 10_000;
    try {
      const reply = await client
        .command(
          { command: "/login", attributes: { name: options.user, password: options.password } },
          { timeoutMs },
        )
        .catch((error: unknown) => {
          if (error instanceof RouterApiTrapError) {
            throw new RouterApiLoginError(
              `${where} refused the login of user ${JSON.stringify(options.user)}: ${error.routerMessage}`,
            );
          }
          if (error instanceof RouterApiTimeoutError)
            throw new RouterApiTimeoutError("login", `${where} did not answer /login within ${timeoutMs} ms`);
          throw error;
        });
      if (reply.done.ret !== undefined) {
        throw new RouterApiLoginError(
          `${where} asked for the pre-6.43 challenge login, which is not supported`,
        );
      }
      return client;
    } catch (error) {
      client.close();
      throw error;
    }
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Runs one command; resolves at `!done`, rejects with `RouterApiTrapError` at `!trap`. */
  command(spec: Omit<CommandWords, "tag">, options: CommandOptions = {}): Promise<CommandReply> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    if (this.pending.size >= this.maxInFlight) {
      return Promise.reject(
        new RouterApiOptionsError(
          `${spec.command}: ${this.maxInFlight} commands are already in flight (maxInFlight)`,
        ),
      );
    }
    options.signal?.throwIfAborted();
    const tag = String(this.nextTag++);
    const words = encodeSentence(commandWords({ ...spec, tag }));
    return new Promise<CommandReply>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.commandTimeoutMs;
      const timer = setTimeout(() => {
        this.abandon(
          tag,
          new RouterApiTimeoutError("command", `${spec.command} did not finish within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      const onAbort = () => this.abandon(tag, options.signal?.reason);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const settle = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        this.pending.delete(tag);
      };
      this.pending.set(tag, {
        command: spec.command,
        records: [],
        bytes: 0,
        empty: false,
        onRecord: options.onRecord,
        resolve: (reply) => {
          settle();
          resolve(reply);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.socket.write(words);
    });
  }

  /** Ends the connection; commands in flight fail with `RouterApiConnectionError`. */
  close(): void {
    this.fail(new RouterApiConnectionError(`connection to ${this.where} closed by this side`));
  }

  /** Fails a command now and asks the router to stop it; its late replies find no command and are dropped. */
  private abandon(tag: string, error: unknown): void {
    const pending = this.pending.get(tag);
    if (!pending) return;
    pending.reject(error);
    if (!this.closedBy)
      this.socket.write(encodeSentence(commandWords({ command: "/cancel", attributes: { tag } })));
  }

  private receive(chunk: Buffer): void {
    let sentences: Buffer[][];
    try {
      sentences = this.decoder.push(chunk);
    } catch (error) {
      // One reply word or sentence beyond the limits: the stream cannot be resynchronised, so it ends.
      this.fail(new RouterApiProtocolError(`${this.where}: ${(error as Error).message} (maxReplyBytes)`));
      return;
    }
    for (const words of sentences) this.handle(parseSentence(words));
  }

  private handle(reply: ParsedSentence): void {
    if (reply.head === "!fatal") {
      const reason = reply.bare.join(" ") || reply.attributes.get("message") || "no reason given";
      this.fail(new RouterApiConnectionError(`${this.where} ended the session: ${reason}`));
      return;
    }
    const pending = reply.tag === undefined ? undefined : this.pending.get(reply.tag);
    if (!pending) return;
    if (reply.head === "!re") {
      pending.bytes += [...reply.attributes].reduce((sum, [k, v]) => sum + k.length + v.length + 2, 0);
      const record = Object.fromEntries(reply.attributes);
      if (pending.onRecord) {
        pending.onRecord(record);
        return;
      }
      pending.records.push(record);
      if (pending.records.length > this.maxReplyRecords || pending.bytes > this.maxReplyBytes) {
        const limit =
          pending.records.length > this.maxReplyRecords
            ? `${this.maxReplyRecords} records (maxReplyRecords)`
            : `${this.maxReplyBytes} bytes (maxReplyBytes)`;
        this.abandon(
          reply.tag as string,
          new RouterApiProtocolError(`${pending.command}: the reply exceeds the limit of ${limit}`),
        );
      }
    } else if (reply.head === "!empty") pending.empty = true;
    else if (reply.head === "!trap") pending.trap ??= reply;
    else if (reply.head === "!done") {
      const trap = pending.trap;
      if (!trap) {
        const done = Object.fromEntries(reply.attributes);
        pending.resolve({ records: pending.records, done, empty: pending.empty });
        return;
      }
      const category = trap.attributes.get("category");
      pending.reject(
        new RouterApiTrapError(
          pending.command,
          trap.attributes.get("message") ?? "(no message)",
          category === undefined ? undefined : Number(category),
        ),
      );
    }
  }

  private fail(error: Error): void {
    if (!this.closedBy) this.closedBy = error;
    for (const pending of [...this.pending.values()]) pending.reject(this.closedBy);
    this.socket.destroy();
  }
}
