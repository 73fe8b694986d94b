/**
 * The SSH face of one simulated router: its console over SSH (ssh2's server, pure JavaScript), as RouterOS
 * serves it on port 22. One user logs in with the password or a public key from an authorized_keys file;
 * `ssh admin@router '/ip address print'` runs the line and exits 0, or prints the router's error and exits 1;
 * a shell gets the banner and the `[admin@MikroTik] > ` prompt (see console/session.ts).
 *
 * RouterOS reads terminal options after a `+` in the login name (`admin+ct80w`: no colours, no terminal
 * detection, 80 columns); the console here has no colours and no width, so they are accepted and dropped.
 */
import { StringDecoder } from "node:string_decoder";
import ssh2 from "ssh2";
import { clientAddress } from "../../api/server.js";
import { RouterOsError } from "../../errors.js";
import { LineReader } from "../console/line-reader.js";
import { ConsoleSession, consoleBanner, runCommandLine } from "../console/session.js";
import type { SimulatedRouter } from "../router.js";
import { constantTimeEqual } from "./credentials.js";
import type { HostKey, PublicKey } from "./ssh-keys.js";

export interface SshFrontEndOptions {
  readonly host: string;
  readonly port: number;
  readonly hostKey: HostKey;
  readonly user: string;
  readonly password: string;
  /** Keys that log in as `user` (none: password login only). */
  readonly authorizedKeys: readonly PublicKey[];
  /** Runs after every command line, before its output is sent (the state file is written then). */
  readonly afterCommand?: () => Promise<void>;
  /**
   * Why the router's configuration keeps a client address out now, or undefined to answer it: a refused
   * address's connection is closed before it logs in, and a session of it is closed at its next command line,
   * which does not run (a firewall's drop; the API's and REST's listeners reset instead, which ssh2's server
   * gives no public way to do).
   */
  readonly refuse?: (peer: string) => string | undefined;
}

export interface SshFrontEnd {
  readonly host: string;
  readonly port: number;
  /** Ends every session and keeps listening, as a management path that drops for a moment. */
  dropSessions(): void;
  close(): Promise<void>;
}

/** `admin+ct80w` logs in as `admin`: RouterOS's console options follow the `+`. */
export function loginName(name: string): string {
  const match = /^(.*)\+[0-9a-z]*$/.exec(name);
  return match?.[1] ?? name;
}

/** What RouterOS prints for a command stopped by Ctrl-C. */
const interrupted = () => new RouterOsError("interrupted");

const lines = (output: readonly string[]) => output.map((line) => `${line}\r\n`).join("");

export async function startSshFrontEnd(
  router: SimulatedRouter,
  options: SshFrontEndOptions,
): Promise<SshFrontEnd> {
  const run = async (source: string, signal?: AbortSignal) => {
    try {
      return await router.runScript(source, signal);
    } finally {
      await options.afterCommand?.();
    }
  };
  const consoleOf = (user: string) =>
    new ConsoleSession({
      run,
      user,
      identity: () => router.table("system-identity").items[0]?.values.name ?? "MikroTik",
      isMenu: (path) => router.catalog.isMenu(path),
    });
  const methods: ("publickey" | "password")[] =
    options.authorizedKeys.length > 0 ? ["publickey", "password"] : ["password"];
  const clients = new Set<ssh2.Connection>();
  const server = new ssh2.Server({ hostKeys: [options.hostKey.privateKey] }, (client, info) => {
    const peer = clientAddress(info.ip);
    /** Whether the configuration now drops this client; if so, its connection is closed. */
    const dropped = () => {
      if (options.refuse?.(peer) === undefined) return false;
      client.end();
      return true;
    };
    if (dropped()) return;
    clients.add(client);
    // Each command line is answered at once: Nagle's wait would hold every answer for a delayed ACK.
    // (ssh2's server connection has the method; its types leave it out)
    (client as unknown as { setNoDelay(noDelay: boolean): void }).setNoDelay(true);
    client.on("close", () => clients.delete(client));
    // A client that drops mid-handshake or sends garbage ends its own connection, nothing else.
    client.on("error", () => client.end());
    client.on("authentication", (context) => {
      const userMatches = loginName(context.username) === options.user;
      if (context.method === "password") {
        // Compared even for a wrong user, so the answer's timing does not tell which users exist.
        const passwordMatches = constantTimeEqual(context.password, options.password);
        return userMatches && passwordMatches ? context.accept() : context.reject(methods);
      }
      if (context.method === "publickey" && userMatches) {
        const key = options.authorizedKeys.find((known) => known.getPublicSSH().equals(context.key.data));
        if (!key) return context.reject(methods);
        // Without a signature the client only asks whether the key would do; with one it proves it holds it.
        if (!context.signature || !context.blob) return context.accept();
        return key.verify(context.blob, context.signature, context.hashAlgo)
          ? context.accept()
          : context.reject(methods);
      }
      return context.reject(methods);
    });
    client.on("ready", () => {
      client.on("session", (acceptSession) => {
        const session = acceptSession();
        let terminal = false;
        session.on("pty", (accept) => {
          terminal = true;
          accept?.();
        });
        session.on("window-change", (accept) => accept?.());
        session.on("env", (accept) => accept?.());
        session.on("subsystem", (_accept, reject) => reject?.());
        session.on("exec", (accept, _reject, info) => {
          if (dropped()) return;
          const stream = accept();
          // A client that goes away stops its command, as closing a RouterOS session interrupts it.
          const stop = new AbortController();
          stream.on("close", () => stop.abort(interrupted()));
          void runCommandLine(info.command, run, stop.signal)
            .catch((error: unknown) => ({ output: [`failure: ${(error as Error).message}`], status: 1 }))
            .then(({ output, status }) => {
              stream.write(lines(output));
              stream.exit(status);
              stream.end();
            });
        });
        session.on("shell", (accept) => {
          const stream = accept();
          const shell = consoleOf(options.user);
          const decoder = new StringDecoder("utf8");
          // Without a terminal the client echoes nothing itself and wants none back (`ssh -T`, scripts).
          const reader = new LineReader((text) => {
            if (terminal) stream.write(text);
          });
          stream.write(lines(consoleBanner) + shell.prompt());
          let turn = Promise.resolve();
          let ended = false;
          /** Stops the command that runs now (Ctrl-C, or the session closing). */
          let running: AbortController | undefined;
          const end = () => {
            if (ended) return;
            ended = true;
            stream.exit(0);
            stream.end();
          };
          stream.on("data", (data: Buffer) => {
            const events = reader.feed(decoder.write(data));
            // Ctrl-C interrupts what runs now, ahead of the lines typed after it.
            if (events.some((event) => event.kind === "cancel")) running?.abort(interrupted());
            turn = turn.then(async () => {
              for (const event of events) {
                if (ended) return;
                if (event.kind === "logout") return end();
                if (event.kind === "line") {
                  if (dropped()) return;
                  running = new AbortController();
                  const reply = await shell.enter(event.text, running.signal).catch((error: unknown) => ({
                    output: [`failure: ${(error as Error).message}`],
                    quit: false,
                  }));
                  running = undefined;
                  stream.write(lines(reply.output));
                  if (reply.quit) return end();
                }
                stream.write(shell.prompt());
              }
            });
          });
          stream.on("close", () => {
            ended = true;
            running?.abort(interrupted());
          });
        });
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    host: options.host,
    port,
    dropSessions: () => {
      for (const client of clients) client.end();
    },
    close: async () => {
      for (const client of clients) client.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
