/**
 * A client of a RouterOS router's console over SSH with the RouterOS API client's shape, so that the device back
 * end drives a router over SSH as over the API or REST: `command` takes the API's words and answers records and
 * `!done`'s values. Each command is one `exec` on the one SSH connection, one at a time, written as a console
 * line that RouterOS 7.13+ runs whole:
 *
 * - a print (`/system/script/print` with `.proplist` and `?name=` queries) becomes a `:foreach` over `find where`
 *   that `:put`s each named property of each item;
 * - `/execute` becomes `:execute` (the scripting command the API's `/execute` is);
 * - anything else is `:put [<command> <attributes>]`, its value being `!done`'s `ret`.
 *
 * The line runs inside `:onerror`, and every line it prints starts with a random marker of this command, so that
 * the router's own refusal (`!`), each property (`=name=`), each item's end (`.`) and the command's end (`/`)
 * cannot be confused with a value, whatever the value holds (line breaks, a `=`). A line RouterOS refuses to
 * parse prints its error without the marker: a refusal too. `/export` needs none of this: its text is the
 * command's output (`exportText`).
 *
 * The host key is verified before the password is sent: its SHA-256 fingerprint (`SHA256:...`, as OpenSSH
 * prints it) must be the pinned one. ssh2 is loaded on first use, so the service loads it only for a router on
 * SSH. No message carries the password.
 */
import { createHash, randomBytes } from "node:crypto";
import { normaliseHostKeyFingerprint } from "../../contract/routers/device-endpoint.js";
import { quoteString } from "../language/quote.js";
import type { ApiRecord, CommandOptions, CommandReply } from "./client.js";
import {
  RouterApiConnectionError,
  RouterApiLoginError,
  RouterApiOptionsError,
  RouterApiProtocolError,
  RouterApiTimeoutError,
  RouterApiTrapError,
} from "./errors.js";
import type { CommandWords } from "./sentence.js";

export interface RouterSshClientOptions {
  readonly host: string;
  /** @default 22 */
  readonly port?: number;
  readonly user: string;
  readonly password: string;
  /** The router's host key, `SHA256:<base64>` as `ssh-keygen -l` and `router simulate` print it. */
  readonly hostKey: string;
  /** TCP connection, key exchange and login. @default 10,000 */
  readonly connectTimeoutMs?: number;
  /** @default 60,000 */
  readonly commandTimeoutMs?: number;
  /** A command's output larger than this is refused. @default 16 MiB */
  readonly maxReplyBytes?: number;
}

/** The SHA-256 fingerprint of a public key blob, base64 without padding, as OpenSSH 6.8+ prints it. */
export function sshFingerprint(publicBlob: Buffer): string {
  return `SHA256:${createHash("sha256").update(publicBlob).digest("base64").replace(/=+$/, "")}`;
}

/** The console path of an API path: `/system/script/add` is `/system script add`, `/execute` is `:execute`. */
function consolePath(command: string): string {
  if (command === "/execute") return ":execute";
  if (!/^(\/[a-z0-9-]+)+$/.test(command)) throw new RouterApiOptionsError(`${command} is not a command path`);
  return `/${command.slice(1).split("/").join(" ")}`;
}

/** API attributes as console arguments: `.id` is the item (`numbers`), an empty value a flag (`as-string`). */
function consoleArguments(attributes: Readonly<Record<string, string>>): string {
  return Object.entries(attributes)
    .filter(([name]) => name !== ".proplist")
    .map(([name, value]) => {
      if (!/^\.?[a-z0-9-]+$/.test(name)) throw new RouterApiOptionsError(`${name} is not a property name`);
      if (name === ".id") return `numbers=${quoteString(value)}`;
      return value === "" && name === "as-string" ? name : `${name}=${quoteString(value)}`;
    })
    .join(" ");
}

/** `?name=value` queries as a `where` condition, all of them together. */
function whereOf(command: string, queries: readonly string[]): string {
  return queries
    .map((query) => {
      const match = /^\?([a-z0-9.-]+)=(.*)$/s.exec(query);
      if (!match) {
        throw new RouterApiOptionsError(
          `${command}: over SSH a query is ?name=value (got ${JSON.stringify(query)})`,
        );
      }
      return `${match[1]}=${quoteString(match[2] as string)}`;
    })
    .join(" and ");
}

/**
 * The console line of one API command, printing under `marker` (see the module comment). `single`: the menu has
 * one item and no `find` (`/system identity`), whose properties a print reads with `get` alone.
 */
export function consoleLine(words: Omit<CommandWords, "tag">, marker: string, single = false): string {
  const attributes = words.attributes ?? {};
  let body: string;
  if (words.command.endsWith("/print")) {
    const menu = consolePath(words.command.slice(0, -"/print".length));
    const proplist = words.proplist ?? attributes[".proplist"]?.split(",").filter(Boolean);
    if (!proplist || proplist.length === 0) {
      throw new RouterApiOptionsError(
        `${words.command}: over SSH a print names the properties it reads (=.proplist=name,...)`,
      );
    }
    const where = whereOf(words.command, words.queries ?? []);
    const fields = proplist.map((name) => {
      if (!/^\.?[a-z0-9-]+$/.test(name)) throw new RouterApiOptionsError(`${name} is not a property name`);
      return name === ".id"
        ? `:put ("${marker}=.id=" . $i)`
        : `:put ("${marker}=${name}=" . [${menu} get $i ${name}])`;
    });
    body = single
      ? `${proplist
          .filter((name) => name !== ".id")
          .map((name) => `:put ("${marker}=${name}=" . [${menu} get ${name}])`)
          .join("; ")}; :put "${marker}."`
      : `:foreach i in=[${menu} find${where ? ` where ${where}` : ""}] do={ ${fields.join("; ")}; :put "${marker}." }`;
  } else {
    if ((words.queries ?? []).length > 0)
      throw new RouterApiOptionsError(`${words.command}: over SSH only a print takes queries`);
    const args = consoleArguments(attributes);
    body = `:put ("${marker}=ret=" . [${consolePath(words.command)}${args ? ` ${args}` : ""}])`;
  }
  return `:onerror e in={ ${body} } do={ :put ("${marker}!" . $e) }; :put "${marker}/"`;
}

/** The records and `ret` of a command's output, as `consoleLine` made it print them. */
export function parseConsoleReply(command: string, output: string, marker: string): CommandReply {
  const lines = output.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  const records: ApiRecord[] = [];
  let record: ApiRecord = {};
  let field: string | undefined;
  let done: ApiRecord = {};
  let finished = false;
  for (const line of lines) {
    if (!line.startsWith(marker)) {
      // A value's own line break: the line goes on the property read last.
      if (field !== undefined) record[field] = `${record[field]}\n${line}`;
      continue;
    }
    const rest = line.slice(marker.length);
    field = undefined;
    if (rest.startsWith("!")) throw new RouterApiTrapError(command, rest.slice(1));
    if (rest === ".") {
      records.push(record);
      record = {};
    } else if (rest === "/") finished = true;
    else if (rest.startsWith("=")) {
      const eq = rest.indexOf("=", 1);
      field = rest.slice(1, eq);
      record[field] = rest.slice(eq + 1);
    }
  }
  if (!finished) {
    // RouterOS printed its own error (a line it could not parse) instead of running it.
    const text = output.trim() === "" ? "the router answered nothing" : output.trim().split(/\r?\n/).at(-1);
    throw new RouterApiTrapError(command, text as string);
  }
  if (record.ret !== undefined && records.length === 0 && !command.endsWith("/print")) done = record;
  return { records, done, empty: records.length === 0 };
}

type Ssh2 = typeof import("ssh2");
type SshConnection = InstanceType<Ssh2["Client"]>;

async function loadSsh2(): Promise<Ssh2> {
  try {
    const loaded = (await import("ssh2")) as Ssh2 & { default?: Ssh2 };
    return loaded.default ?? loaded;
  } catch {
    throw new RouterApiOptionsError(
      "the SSH transport needs the ssh2 package, which the routerjobs bundle holds: run the service from the routerjobs command",
    );
  }
}

export class RouterSshClient {
  private closed = false;
  private turn: Promise<unknown> = Promise.resolve();
  private lostReason: string | undefined;
  /** Prints of menus found to have one item and no `find` (`/system/identity/print`): read with `get` at once. */
  private readonly singleMenus = new Set<string>();

  private constructor(
    private readonly connection: SshConnection,
    private readonly options: RouterSshClientOptions,
    private readonly where: string,
  ) {
    connection.on("close", () => {
      this.lostReason ??= "the SSH connection closed";
      this.closed = true;
    });
    connection.on("error", (error) => {
      this.lostReason = error.message;
    });
  }

  /** Connects, verifies the host key against the pin, logs in with the password. */
  static async connect(options: RouterSshClientOptions): Promise<RouterSshClient> {
    const pin = normaliseHostKeyFingerprint(options.hostKey);
    if (!pin) {
      throw new RouterApiOptionsError(
        "the SSH host key must be pinned as SHA256:<base64> (ssh-keygen -l -f the key, or what router simulate prints)",
      );
    }
    const { Client } = await loadSsh2();
    const port = options.port ?? 22;
    const where = options.host.includes(":") ? `[${options.host}]:${port}` : `${options.host}:${port}`;
    const timeoutMs = options.connectTimeoutMs ?? 10_000;
    const connection = new Client();
    let seen: string | undefined;
    return new Promise<RouterSshClient>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          settle(() => {
            // Not end(): a peer that never said SSH would keep a half-closed socket open for good.
            connection.destroy();
            reject(
              new RouterApiTimeoutError("connect", `no SSH session with ${where} within ${timeoutMs} ms`),
            );
          }),
        timeoutMs,
      );
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        connection.removeAllListeners("ready");
        connection.removeAllListeners("error");
        // Once settled, what ssh2 still reports (its own ready timeout is followed by "Connection lost before
        // handshake" when the socket closes) has nobody to tell: unheard, it would end the process.
        connection.on("error", () => {});
        outcome();
      };
      connection.once("ready", () =>
        settle(() => {
          // Commands are small and answered one by one: Nagle's wait would add a delayed ACK to each.
          connection.setNoDelay(true);
          resolve(new RouterSshClient(connection, options, where));
        }),
      );
      connection.once("error", (error: Error & { level?: string }) =>
        settle(() => {
          connection.destroy();
          if (seen !== undefined && seen !== pin) {
            reject(
              new RouterApiConnectionError(
                `SSH host key of ${where} is ${seen}, not the pinned ${pin}; nothing was sent. If the router's key changed on purpose (a new router, a reset), check it from a machine on a path you trust (ssh-keyscan -t ed25519 <host> | ssh-keygen -lf -) and pin the new one: routerjobs service router add again with the router's --id and --ssh-host-key ${seen}`,
              ),
            );
          } else if (error.level === "client-authentication") {
            reject(
              new RouterApiLoginError(
                `${where} refused the SSH login of user ${JSON.stringify(options.user)}`,
              ),
            );
          } else if (error.level === "client-timeout") {
            reject(
              new RouterApiTimeoutError("connect", `no SSH session with ${where} within ${timeoutMs} ms`),
            );
          } else {
            reject(
              new RouterApiConnectionError(`SSH connection to ${where} failed: ${error.message}`, {
                cause: error,
              }),
            );
          }
        }),
      );
      connection.connect({
        host: options.host,
        port,
        username: options.user,
        password: options.password,
        tryKeyboard: false,
        readyTimeout: timeoutMs,
        keepaliveInterval: 15_000,
        hostVerifier: (key: Buffer) => {
          seen = sshFingerprint(key);
          return seen === pin;
        },
      });
    });
  }

  async command(words: Omit<CommandWords, "tag">, options: CommandOptions = {}): Promise<CommandReply> {
    const marker = `rj${randomBytes(8).toString("hex")}`;
    const single = this.singleMenus.has(words.command);
    const output = await this.exec(words.command, consoleLine(words, marker, single), options);
    try {
      return parseConsoleReply(words.command, output, marker);
    } catch (error) {
      // A menu without `find` is refused before anything ran: it has one item, read without one.
      if (
        single ||
        !(error instanceof RouterApiTrapError && /^bad command name find\b/.test(error.routerMessage))
      )
        throw error;
      this.singleMenus.add(words.command);
      const again = await this.exec(words.command, consoleLine(words, marker, true), options);
      return parseConsoleReply(words.command, again, marker);
    }
  }

  /** `/export` (with `arguments`, such as `terse`): the configuration as the console prints it. */
  async exportText(options: CommandOptions = {}): Promise<string> {
    const output = await this.exec("/export", "/export", options);
    // The console ends every output with a line break of its own: the text ends in one, as the export file does.
    const text = output.replace(/\r\n/g, "\n").replace(/\n+$/, "\n");
    if (!text.startsWith("#")) throw new RouterApiTrapError("/export", text.trim() || "no export text");
    return text;
  }

  close(): void {
    this.closed = true;
    this.connection.end();
  }

  /** Runs one console line, after the one before it: its output, or the connection's error. */
  private exec(command: string, line: string, options: CommandOptions): Promise<string> {
    const run = this.turn.then(() => this.execNow(command, line, options));
    this.turn = run.catch(() => undefined);
    return run;
  }

  private execNow(command: string, line: string, options: CommandOptions): Promise<string> {
    if (this.closed) {
      return Promise.reject(
        new RouterApiConnectionError(
          `${command} on ${this.where}: ${this.lostReason ?? "the SSH client is closed"}`,
        ),
      );
    }
    options.signal?.throwIfAborted();
    const timeoutMs = options.timeoutMs ?? this.options.commandTimeoutMs ?? 60_000;
    const limit = this.options.maxReplyBytes ?? 16 * 1024 * 1024;
    return new Promise<string>((resolve, reject) => {
      let settled = false;
      let channel: { close(): void } | undefined;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        this.connection.off("close", onClose);
        outcome();
      };
      const onClose = () =>
        settle(() =>
          reject(
            new RouterApiConnectionError(
              `${command} on ${this.where}: ${this.lostReason ?? "the SSH connection closed"}`,
            ),
          ),
        );
      const timer = setTimeout(() => {
        channel?.close();
        settle(() =>
          reject(new RouterApiTimeoutError("command", `${command} did not finish within ${timeoutMs} ms`)),
        );
      }, timeoutMs);
      const onAbort = () => {
        channel?.close();
        settle(() => reject(options.signal?.reason));
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.connection.on("close", onClose);
      this.connection.exec(line, (error, stream) => {
        if (error) {
          settle(() => reject(new RouterApiConnectionError(`${command} on ${this.where}: ${error.message}`)));
          return;
        }
        channel = stream;
        if (settled) stream.close();
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) {
            stream.close();
            settle(() =>
              reject(new RouterApiProtocolError(`${command}: the reply is larger than ${limit} bytes`)),
            );
          } else chunks.push(chunk);
        });
        stream.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
        let exited = false;
        stream.on("exit", () => {
          exited = true;
        });
        // A channel that closes without an exit status may have been cut by the connection going away (its
        // output then ends early, and reading it as the router's answer would be wrong): if the connection
        // closes by the next turn, it is a lost connection, answered by `onClose`.
        stream.on("close", () => {
          const output = () => Buffer.concat(chunks).toString("utf8");
          if (exited) settle(() => resolve(output()));
          else setImmediate(() => (this.closed ? onClose() : settle(() => resolve(output()))));
        });
      });
    });
  }
}
