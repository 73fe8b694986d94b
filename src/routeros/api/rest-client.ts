/**
 * A client of RouterOS 7's REST API (`/rest` on www-ssl) with the RouterOS API client's shape: `command` takes
 * the API's words (a path such as `/system/script/print`, attributes, `?` queries, `.proplist`) and answers
 * records and `!done`'s values, so a caller can drive a router over either. Each command is
 * `POST /rest/<path>` with the words as a JSON body (`.query` without the `?`): RouterOS answers records as a
 * list, `!done`'s values as one object, nothing as `[]`.
 *
 * The TLS connection is `openTransport`'s, verified by the same rules as api-ssl (a pinned fingerprint, or a CA)
 * before a byte is written, so the password in the Authorization header never reaches an unverified peer.
 * Connections are kept alive and reused. Errors are the API client's: a refusal (400 and other 4xx with a
 * `detail`) is `RouterApiTrapError` with the router's text, 401 is `RouterApiLoginError`, a lost connection
 * `RouterApiConnectionError`, a deadline `RouterApiTimeoutError`. No message carries the password.
 */
import { Agent, type ClientRequestArgs, request } from "node:http";
import type { Duplex } from "node:stream";
import type { ApiRecord, CommandOptions, CommandReply } from "./client.js";
import {
  RouterApiConnectionError,
  RouterApiLoginError,
  RouterApiProtocolError,
  RouterApiTimeoutError,
  RouterApiTrapError,
} from "./errors.js";
import type { CommandWords } from "./sentence.js";
import { openTransport, type TransportOptions } from "./transport.js";

export interface RouterRestClientOptions extends Omit<TransportOptions, "port"> {
  /** @default 443 with TLS, 80 with `allowPlaintext` */
  readonly port?: number;
  readonly user: string;
  /** Sent in each request's Authorization header, over the verified connection only. */
  readonly password: string;
  /** One command, unless its call gives another. RouterOS itself stops a REST command at 60 s. @default 60,000 */
  readonly commandTimeoutMs?: number;
  /** A reply larger than this is refused. @default 16 MiB */
  readonly maxReplyBytes?: number;
}

/** A connection pool whose every connection is opened, and verified, by `openTransport`. */
class VerifiedAgent extends Agent {
  constructor(private readonly transport: TransportOptions) {
    super({ keepAlive: true, maxSockets: 4 });
  }

  override createConnection(
    _options: ClientRequestArgs,
    callback?: (error: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    openTransport(this.transport).then(
      (socket) => callback?.(null, socket),
      (error: Error) => callback?.(error, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

export class RouterRestClient {
  private readonly agent: VerifiedAgent;
  private readonly authorization: string;
  private readonly where: string;
  private readonly host: string;
  private closed = false;

  private constructor(private readonly options: RouterRestClientOptions) {
    const port = options.port ?? (options.tls ? 443 : 80);
    this.agent = new VerifiedAgent({ ...options, port });
    this.authorization = `Basic ${Buffer.from(`${options.user}:${options.password}`, "utf8").toString("base64")}`;
    this.where = options.host.includes(":") ? `[${options.host}]:${port}` : `${options.host}:${port}`;
    this.host = this.where;
  }

  /** Opens the first connection and checks the login with `/system/identity/print`, as the API's `/login`. */
  static async connect(options: RouterRestClientOptions): Promise<RouterRestClient> {
    const client = new RouterRestClient(options);
    try {
      await client.command({ command: "/system/identity/print" });
      return client;
    } catch (error) {
      client.close();
      throw error;
    }
  }

  command(spec: Omit<CommandWords, "tag">, options: CommandOptions = {}): Promise<CommandReply> {
    if (this.closed)
      return Promise.reject(new RouterApiConnectionError(`the REST client of ${this.where} is closed`));
    options.signal?.throwIfAborted();
    const body: Record<string, unknown> = { ...(spec.attributes ?? {}) };
    if (spec.proplist) body[".proplist"] = [...spec.proplist];
    if (spec.queries && spec.queries.length > 0)
      body[".query"] = spec.queries.map((word) => word.replace(/^\?/, ""));
    const text = JSON.stringify(body);
    const timeoutMs = options.timeoutMs ?? this.options.commandTimeoutMs ?? 60_000;
    const limit = this.options.maxReplyBytes ?? 16 * 1024 * 1024;
    return new Promise<CommandReply>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        outcome();
      };
      const req = request(
        {
          agent: this.agent,
          method: "POST",
          path: `/rest${spec.command.split("/").map(encodeURIComponent).join("/")}`,
          headers: {
            host: this.host,
            authorization: this.authorization,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(text),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > limit) {
              req.destroy();
              settle(() =>
                reject(
                  new RouterApiProtocolError(`${spec.command}: the reply is larger than ${limit} bytes`),
                ),
              );
            } else chunks.push(chunk);
          });
          res.on("error", (error) => settle(() => reject(this.lost(spec.command, error))));
          res.on("end", () =>
            settle(() => {
              try {
                resolve(
                  this.reply(spec.command, res.statusCode ?? 0, Buffer.concat(chunks).toString("utf8")),
                );
              } catch (error) {
                reject(error);
              }
            }),
          );
        },
      );
      const timer = setTimeout(() => {
        req.destroy();
        settle(() =>
          reject(
            new RouterApiTimeoutError("command", `${spec.command} did not finish within ${timeoutMs} ms`),
          ),
        );
      }, timeoutMs);
      const onAbort = () => {
        req.destroy();
        settle(() => reject(options.signal?.reason));
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (error) =>
        settle(() =>
          reject(
            error instanceof RouterApiConnectionError || error instanceof RouterApiTimeoutError
              ? error
              : this.lost(spec.command, error),
          ),
        ),
      );
      req.end(text);
    });
  }

  close(): void {
    this.closed = true;
    this.agent.destroy();
  }

  private lost(command: string, error: Error): RouterApiConnectionError {
    return new RouterApiConnectionError(`${command} on ${this.where}: ${error.message}`, { cause: error });
  }

  private reply(command: string, status: number, text: string): CommandReply {
    let body: unknown;
    try {
      body = text === "" ? [] : JSON.parse(text);
    } catch {
      throw new RouterApiProtocolError(
        `${command}: ${this.where} answered ${status} with a body that is not JSON`,
      );
    }
    if (status === 401) {
      throw new RouterApiLoginError(
        `${this.where} refused the login of user ${JSON.stringify(this.options.user)}`,
      );
    }
    if (status >= 400) {
      const { detail, message } = (body ?? {}) as { detail?: unknown; message?: unknown };
      const text =
        typeof detail === "string" ? detail : typeof message === "string" ? message : `HTTP ${status}`;
      if (status < 500) throw new RouterApiTrapError(command, text);
      throw new RouterApiConnectionError(`${command} on ${this.where}: HTTP ${status} ${text}`);
    }
    if (Array.isArray(body))
      return { records: body.map((record) => strings(command, record)), done: {}, empty: body.length === 0 };
    return { records: [], done: strings(command, body), empty: false };
  }
}

/** A record as RouterOS writes it: an object of strings. */
function strings(command: string, value: unknown): ApiRecord {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new RouterApiProtocolError(`${command}: a record of the reply is not an object`);
  const record: ApiRecord = {};
  for (const [name, field] of Object.entries(value))
    record[name] = typeof field === "string" ? field : JSON.stringify(field);
  return record;
}
