/**
 * `routerjobs router simulate`: one simulated RouterOS device in its own process, speaking the RouterOS API
 * (api, or api-ssl with `--tls` and a self-signed certificate) on the given address, and with `--rest` its
 * REST API over HTTPS (www-ssl, the same certificate), both in front of the one router. It prints one JSON line
 * once it listens, `{"address","tls","rest","fingerprint","certificate"}`, and stops on SIGTERM or SIGINT.
 *
 * With `--state-file` it keeps its state as a router keeps its configuration: every change is committed to the
 * file (grouped, atomically; see device-state-file.ts) before the API answers, so a `kill -9` loses nothing a
 * client has seen. A start from the file is a reboot: the configuration is back, no script runs, `:global`
 * variables are gone.
 *
 * With `--ssh` the same router also serves its console over SSH (adapters/ssh-front-end.ts); the ready line
 * then carries the host key to pin, and the key is kept beside the state file.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { Command } from "commander";
import { EnvironmentError, UsageError } from "../../errors.js";
import type { SimulatedRouter } from "../../routeros/simulator/router.js";
import { untilStopped } from "../until-stopped.js";

interface SimulateFlags {
  readonly api: string;
  readonly tls?: boolean | undefined;
  readonly rest?: string | undefined;
  readonly certificateFile?: string | undefined;
  readonly user: string;
  readonly passwordFile: string;
  readonly name?: string | undefined;
  readonly stateFile?: string | undefined;
  readonly pingIntervalMs: number;
  readonly model?: string | undefined;
  /** commander's `--no-defaults`: false when given. */
  readonly defaults: boolean;
  readonly ssh?: string | undefined;
  readonly sshAuthorizedKeys?: string | undefined;
  /** commander's `--no-reach`: false when given. */
  readonly reach: boolean;
}

export function routerCommand(): Command {
  const router = new Command("router").description("RouterOS devices: a simulated one for tests and trials");
  router.addCommand(
    new Command("simulate")
      .description("run one simulated RouterOS device speaking the RouterOS API (and its console over SSH)")
      .option("--api <host:port>", "address of the API (port 0 picks a free one)", "127.0.0.1:8728")
      .option("--tls", "api-ssl: TLS with a generated self-signed certificate (its fingerprint is printed)")
      .option(
        "--rest <host:port>",
        "also serve RouterOS's REST API (/rest over HTTPS, basic auth) here, with the same certificate",
      )
      .option(
        "--certificate-file <file>",
        "keep the device's certificate and key here (PEM, 0600) across restarts, as a router keeps its own",
      )
      .option("--user <name>", "the user the device accepts")
      .option("--password-file <file>", "file holding that user's password (never a flag: flags are visible)")
      .option("--name <identity>", "the device's /system identity", "MikroTik")
      .option("--state-file <file>", "JSON state read at start and written at every change")
      .option(
        "--model <name>",
        "the board: CHR (the default), hEX, hAP ax2, hAP ax3, RB5009, CRS326-24G-2S+, ...",
      )
      .option("--no-defaults", "start without the model's default configuration (as after no-defaults=yes)")
      .option(
        "--no-reach",
        "answer every client, whatever the firewall and /ip service say (by default a client they cut off gets a reset)",
      )
      .option("--ping-interval-ms <ms>", "interval of /tool/ping when the command gives none", "1000")
      .option(
        "--ssh <host:port>",
        "also serve the console over SSH (password or key login; host key kept beside --state-file)",
      )
      .option(
        "--ssh-authorized-keys <file>",
        "OpenSSH authorized_keys file: the public keys --user may log in with over SSH",
      )
      .addHelpText(
        "after",
        `
Prints one JSON line when listening: {"address":"127.0.0.1:PORT","tls":true,"fingerprint":"sha256:..."};
with --rest also "rest":"127.0.0.1:PORT" and the certificate (PEM) that REST's HTTPS presents; with --ssh also
"ssh":{"address","hostKey":"ssh-ed25519 AAAA...","fingerprint":"SHA256:..."}: write "[HOST]:PORT <hostKey>"
to known_hosts. The host key is made at the first start; with --state-file it is kept in
<state-file>.ssh-host-key, so it stays the same across restarts.

REST (--rest) answers as RouterOS 7's: GET /rest/ip/address (print; ?.proplist=a,b and ?name=value
filters), GET /rest/ip/address/*1, PUT (add), PATCH (set), DELETE (remove), POST /rest/<menu>/<command>
with a JSON body (".proplist", ".query"). All values are strings. See docs/routeros.md.

Examples:
  $ routerjobs router simulate --api 127.0.0.1:0 --tls --user admin --password-file ./pw
  $ routerjobs router simulate --rest 127.0.0.1:8443 --user admin --password-file ./pw
  $ curl --cacert device.pem -u admin https://127.0.0.1:8443/rest/system/identity
  $ routerjobs router simulate --ssh 127.0.0.1:2222 --ssh-authorized-keys ~/.ssh/id_ed25519.pub \\
      --user admin --password-file ./pw
  $ ssh -p 2222 admin@127.0.0.1 '/ip address print'
  $ routerjobs router simulate --model "hAP ax3" --user admin --password-file ./pw`,
      )
      .action(async (raw: Record<string, unknown>) => runSimulate(await parseFlags(raw))),
  );
  return router;
}

/** The flags, checked together; the error names the flag. zod loads here, not when `--help` runs. */
export async function parseFlags(raw: Record<string, unknown>): Promise<SimulateFlags> {
  const { z } = await import("zod");
  const flagsSchema = z.object({
    api: z.string().regex(/^(\[[0-9a-fA-F:]+\]|[^:\s[\]]+):\d{1,5}$/, {
      error: "--api must be HOST:PORT, like 127.0.0.1:8728",
    }),
    tls: z.boolean().optional(),
    rest: z
      .string()
      .regex(/^(\[[0-9a-fA-F:]+\]|[^:\s[\]]+):\d{1,5}$/, {
        error: "--rest must be HOST:PORT, like 127.0.0.1:8443",
      })
      .optional(),
    certificateFile: z.string().min(1, { error: "--certificate-file must not be empty" }).optional(),
    user: z.string({ error: "--user is required" }).min(1, { error: "--user must not be empty" }),
    passwordFile: z.string({ error: "--password-file is required" }).min(1),
    name: z.string().min(1).optional(),
    stateFile: z.string().min(1).optional(),
    pingIntervalMs: z.coerce
      .number()
      .int()
      .positive({ error: "--ping-interval-ms must be a positive whole number" }),
    model: z.string().min(1, { error: "--model must not be empty" }).optional(),
    defaults: z.boolean().default(true),
    reach: z.boolean().default(true),
    ssh: z
      .string()
      .regex(/^(\[[0-9a-fA-F:]+\]|[^:\s[\]]+):\d{1,5}$/, {
        error: "--ssh must be HOST:PORT, like 127.0.0.1:2222",
      })
      .optional(),
    sshAuthorizedKeys: z.string().min(1).optional(),
  });
  const result = flagsSchema.safeParse(raw);
  if (!result.success) throw new UsageError(result.error.issues.map((issue) => issue.message).join("; "));
  if (result.data.sshAuthorizedKeys !== undefined && result.data.ssh === undefined)
    throw new UsageError("--ssh-authorized-keys needs --ssh HOST:PORT");
  if (result.data.model !== undefined) {
    // The catalog is small data; it loads here, not when `--help` runs.
    const { modelNamed } = await import("../../routeros/simulator/models/index.js");
    try {
      modelNamed(result.data.model);
    } catch (error) {
      throw new UsageError(`--model: ${(error as Error).message}`);
    }
  }
  return result.data;
}

/** HOST:PORT of a flag already shaped so; the port is checked here. */
function hostPort(flag: string, value: string): { host: string; port: number } {
  const cut = value.lastIndexOf(":");
  const port = Number(value.slice(cut + 1));
  if (port > 65_535) throw new UsageError(`${flag} port must be 0 to 65535 (got ${port})`);
  return { host: value.slice(0, cut).replace(/^\[|\]$/g, ""), port };
}

const formatAddress = (host: string, port: number) =>
  host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;

async function runSimulate(flags: SimulateFlags): Promise<void> {
  const { host, port } = hostPort("--api", flags.api);
  const restAt = flags.rest === undefined ? undefined : hostPort("--rest", flags.rest);
  const password = await readPassword(flags.passwordFile);
  const sshSettings = flags.ssh ? await prepareSsh(flags, flags.ssh) : undefined;
  const [
    { SimulatedRouter },
    { startRouterApiServer },
    { apiFrontEnd },
    { keptDeviceCertificate, selfSignedDeviceCertificate },
  ] = await Promise.all([
    import("../../routeros/simulator/router.js"),
    import("../../routeros/api/server.js"),
    import("../../routeros/simulator/adapters/api-front-end.js"),
    import("../../routeros/simulator/adapters/device-certificate.js"),
  ]);
  const { certificateFingerprint } = await import("../../routeros/api/transport.js");
  const { constantTimeEqual } = await import("../../routeros/simulator/adapters/credentials.js");
  const { DeviceStateFile } = await import("../../routeros/simulator/adapters/device-state-file.js");
  const { readOnlyVerbs } = await import("../../routeros/simulator/verbs.js");
  let state: InstanceType<typeof DeviceStateFile> | undefined;
  const device = new SimulatedRouter({
    name: flags.name ?? "MikroTik",
    ...(flags.model ? { model: flags.model } : {}),
    // A start from a state file restores its configuration (and model) below; defaults are for a new device.
    defaults: flags.defaults && !(flags.stateFile && existsSync(flags.stateFile)),
    // Whether a command may change what the state file keeps (an export to a file writes one).
    beforeCommand: (call) => {
      if (!readOnlyVerbs.has(call.verb) || (call.verb === "export" && call.named.has("file")))
        state?.changed();
    },
  });
  if (flags.stateFile && existsSync(flags.stateFile)) {
    try {
      device.restore(JSON.parse(await readFile(flags.stateFile, "utf8")));
    } catch (error) {
      throw new UsageError(
        `--state-file ${flags.stateFile} is not a saved device state: ${(error as Error).message}`,
      );
    }
    device.reboot();
  }
  if (flags.stateFile) state = new DeviceStateFile(flags.stateFile, () => device.snapshot());
  // A router answering REST has www-ssl enabled (RouterOS ships it disabled): the reachability model and a
  // client's `/ip service print` see the service that answers them.
  if (restAt) await device.runScript("/ip service set www-ssl disabled=no");
  const frontEnd = apiFrontEnd(device, { pingIntervalMs: flags.pingIntervalMs });
  // One certificate for api-ssl and www-ssl, as a router's one device certificate serves both.
  const hosts = [host, ...(restAt ? [restAt.host] : [])];
  let certificate: { cert: string; key: string } | undefined;
  if ((flags.tls || restAt) && flags.certificateFile) {
    try {
      certificate = await keptDeviceCertificate(flags.certificateFile, hosts);
    } catch (error) {
      throw new UsageError(`--certificate-file: ${(error as Error).message}`);
    }
  } else if (flags.tls || restAt) certificate = await selfSignedDeviceCertificate(hosts);
  const tls = flags.tls ? certificate : undefined;
  const authenticate = (user: string, given: string) =>
    user === flags.user && constantTimeEqual(given, password);
  // What a client is answered is on disk first (a background script's changes follow within the delay).
  const handler = async (command: Parameters<typeof frontEnd>[0]) => {
    try {
      return await frontEnd(command);
    } finally {
      await state?.flush();
    }
  };
  const { peerGate } = await import("../../routeros/simulator/reachability/index.js");
  const server = await startRouterApiServer({
    host,
    port,
    ...(tls ? { tls } : {}),
    authenticate,
    handler,
    // The service's path, as plan's check follows it, held against the connecting address.
    ...(flags.reach ? { refuse: peerGate(device, tls ? "api-ssl" : "api") } : {}),
  }).catch((error: NodeJS.ErrnoException) => {
    throw new EnvironmentError(`cannot listen on ${flags.api}: ${error.message}`);
  });
  let rest: { readonly host: string; readonly port: number; close(): Promise<void> } | undefined;
  if (restAt && certificate) {
    const [{ restFrontEnd }, { startRestServer }] = await Promise.all([
      import("../../routeros/simulator/adapters/rest-front-end.js"),
      import("../../routeros/simulator/adapters/rest-server.js"),
    ]);
    rest = await startRestServer({
      ...restAt,
      tls: certificate,
      authenticate,
      handler: restFrontEnd(handler),
      ...(flags.reach ? { refuse: peerGate(device, "www-ssl") } : {}),
    }).catch(async (error: NodeJS.ErrnoException) => {
      await server.close();
      throw new EnvironmentError(`cannot listen on ${flags.rest}: ${error.message}`);
    });
  }
  const ssh = sshSettings
    ? await startSsh(
        sshSettings,
        flags.user,
        device,
        password,
        state,
        flags.reach ? peerGate(device, "ssh") : undefined,
      ).catch(async (error: unknown) => {
        // The API (and REST) already listen: close them, or the process would stay up after the failure.
        await Promise.all([server.close(), rest?.close()]);
        throw error;
      })
    : undefined;
  const ready = {
    address: formatAddress(server.host, server.port),
    tls: Boolean(tls),
    ...(rest ? { rest: formatAddress(rest.host, rest.port) } : {}),
    ...(certificate
      ? { fingerprint: certificateFingerprint(certificate.cert), certificate: certificate.cert }
      : {}),
    ...(ssh ? { ssh: ssh.ready } : {}),
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  const scheduler = runSchedulerEverySecond(device, () => {
    // A backup load or `/system reboot` from a task: the sessions end, as the router's do.
    server.dropSessions();
    state?.changed();
  });
  await untilStopped();
  clearInterval(scheduler);
  await Promise.all([server.close(), rest?.close(), ssh?.server.close()]);
  if (state) {
    // The log line of the stop, and anything a running script changed since the last write.
    state.changed();
    await state.flush();
  }
}

/**
 * The device's scheduler on its own clock, as RouterOS checks it every second whether or not anyone is
 * connected; a reboot asked for by a task (a backup load) happens after it.
 */
function runSchedulerEverySecond(device: SimulatedRouter, rebooted: () => void): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void device
      .runScheduler()
      .then((ran) => {
        if (ran > 0 && device.takeRebootRequest()) {
          device.reboot();
          rebooted();
        }
      })
      .catch(() => {})
      .finally(() => {
        running = false;
      });
  }, 1000);
  timer.unref();
  return timer;
}

async function readPassword(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`--password-file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code}`);
  }
  const password = text.replace(/\r?\n$/, "");
  if (password === "") throw new UsageError(`--password-file ${file} is empty`);
  return password;
}

/**
 * `--ssh`, before anything listens: the address, the keys that may log in and the host key (beside the state
 * file, when there is one), so a bad flag stops the start with nothing left open.
 */
async function prepareSsh(flags: SimulateFlags, listen: string) {
  const cut = listen.lastIndexOf(":");
  const host = listen.slice(0, cut).replace(/^\[|\]$/g, "");
  const port = Number(listen.slice(cut + 1));
  if (port > 65_535) throw new UsageError(`--ssh port must be 0 to 65535 (got ${port})`);
  const keys = await import("../../routeros/simulator/adapters/ssh-keys.js");
  let authorizedKeys: ReturnType<typeof keys.parseAuthorizedKeys> = [];
  if (flags.sshAuthorizedKeys) {
    let text: string;
    try {
      text = await readFile(flags.sshAuthorizedKeys, "utf8");
    } catch (error) {
      throw new UsageError(
        `--ssh-authorized-keys ${flags.sshAuthorizedKeys} cannot be read: ${(error as NodeJS.ErrnoException).code}`,
      );
    }
    authorizedKeys = keys.parseAuthorizedKeys(text, `--ssh-authorized-keys ${flags.sshAuthorizedKeys}`);
  }
  const hostKey = flags.stateFile
    ? await keys.hostKeyIn(`${flags.stateFile}.ssh-host-key`)
    : keys.newHostKey();
  return { listen, host, port, authorizedKeys, hostKey };
}

/** The console over SSH, on the same router as the API. */
async function startSsh(
  prepared: Awaited<ReturnType<typeof prepareSsh>>,
  user: string,
  device: SimulatedRouter,
  password: string,
  state: { flush(): Promise<void> } | undefined,
  refuse: ((peer: string) => string | undefined) | undefined,
) {
  const { startSshFrontEnd } = await import("../../routeros/simulator/adapters/ssh-front-end.js");
  const server = await startSshFrontEnd(device, {
    host: prepared.host,
    port: prepared.port,
    hostKey: prepared.hostKey,
    user,
    password,
    authorizedKeys: prepared.authorizedKeys,
    ...(state ? { afterCommand: () => state.flush() } : {}),
    ...(refuse ? { refuse } : {}),
  }).catch((error: NodeJS.ErrnoException) => {
    throw new EnvironmentError(`cannot listen on --ssh ${prepared.listen}: ${error.message}`);
  });
  const address = server.host.includes(":")
    ? `[${server.host}]:${server.port}`
    : `${server.host}:${server.port}`;
  const { publicKey, fingerprint } = prepared.hostKey;
  return { server, ready: { address, hostKey: publicKey, fingerprint } };
}
