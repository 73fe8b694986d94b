/**
 * `RouterBackend` for real RouterOS devices, over the RouterOS API (src/routeros/api), over RouterOS 7's REST
 * API for an endpoint with `transport: "rest"` (`rest-client.ts`: the same commands as `POST /rest/...`), or
 * over its console on SSH with `transport: "ssh"` (`ssh-client.ts`: the same commands as console lines), so
 * everything below holds for all three: one connection per router (over REST a keep-alive pool), reused and
 * reopened when it drops; a health probe that marks a router offline and online.
 *
 * A job's script runs on the device as RouterOS runs anything long: uploaded as a `/system/script` entry named
 * after the job, then started by `/execute` (a background job of the router, which goes on if our connection
 * drops) under a wrapper that writes the outcome into the entry's comment (the states are in job-entry.ts).
 *
 * The outcome is read back from the comment and the entry removed. A connection lost at any point is reopened
 * and the entry read again, so the outcome is never lost and the script never started twice: an entry found
 * `loaded` was never started and is started now; one found `started` or `running` is waited for while the
 * router is in the boot it was started in, and fails at once when the router rebooted since (a reboot stops
 * every script, none resumes). Each new connection reads the router's boot marker (a `:global` only a reboot
 * clears). Script output (`:put`) of a background job is not returned to the service; the device's log has it.
 */

import { randomBytes, randomUUID } from "node:crypto";
import type { DeviceEndpoint } from "../../contract/routers/device-endpoint.js";
import {
  type RouterBackend,
  RouterCommandError,
  RouterTimeoutError,
  RouterUnreachableError,
  type ScriptOutcome,
} from "../../contract/routers/router-backend.js";
import { splitWords, toServiceRecord } from "../../contract/routers/sync-view.js";
import { CONFIG_READ_COMMAND, type RouterRecord } from "../../contract/sync.js";
import { RouterApiClient } from "../../routeros/api/client.js";
import {
  RouterApiConnectionError,
  RouterApiLoginError,
  RouterApiOptionsError,
  RouterApiTimeoutError,
  RouterApiTrapError,
} from "../../routeros/api/errors.js";
import { RouterRestClient } from "../../routeros/api/rest-client.js";
import type { RouterSshClient } from "../../routeros/api/ssh-client.js";
import {
  bootMarkerScript,
  ENTRY_REMOVED_DURING_JOB,
  jobWrapper,
  loadedComment,
  mayStillRun,
  parseJobComment,
  RESTARTED_DURING_JOB,
  RESUMED_WITHOUT_ENTRY,
  startedComment,
  takeOverScript,
} from "./job-entry.js";

/** Names one `/execute` of a job's wrapper (job-entry.ts). */
const newAttempt = () => randomBytes(4).toString("hex");

export interface DeviceBackendOptions {
  /** How often each device is asked whether it answers. @default 30,000 */
  readonly probeIntervalMs?: number;
  /** How often a running job's entry is read back. @default 500 */
  readonly jobPollMs?: number;
  /** A job whose outcome the device has not written by then fails (the script may still run). @default 1 h */
  readonly jobTimeoutMs?: number;
  /** TCP and TLS handshake. @default 10,000 */
  readonly connectTimeoutMs?: number;
  /** One API command (not a job's script). @default 60,000 */
  readonly commandTimeoutMs?: number;
}

/**
 * What the back end needs of a connection; the API, REST and SSH clients all are one. Over SSH the console
 * prints `/export`'s text itself (`exportText`): no file to write and read back.
 */
type DeviceConnection = Pick<RouterApiClient, "command" | "close"> &
  Partial<Pick<RouterSshClient, "exportText">>;

interface Device {
  readonly name: string;
  readonly endpoint: DeviceEndpoint;
  connection?: Promise<DeviceConnection>;
  /** The last probe or command reached the device. */
  reachable: boolean;
  /** The operator's switch (`service router offline|online`). */
  enabled: boolean;
  /** The boot marker read by the current connection; undefined when the device would not run the script. */
  boot?: string | undefined;
  probe?: NodeJS.Timeout;
}

export class DeviceBackend implements RouterBackend {
  private readonly devices = new Map<string, Device>();
  private readonly probeIntervalMs: number;
  private readonly jobPollMs: number;
  private readonly jobTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly commandTimeoutMs: number;

  constructor(options: DeviceBackendOptions = {}) {
    this.probeIntervalMs = options.probeIntervalMs ?? 30_000;
    this.jobPollMs = options.jobPollMs ?? 500;
    this.jobTimeoutMs = options.jobTimeoutMs ?? 3_600_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 60_000;
  }

  /** Takes the router on and probes it once, so that `isOnline` is known when this returns. */
  async attach(routerId: string, options: { name: string; endpoint?: DeviceEndpoint }): Promise<void> {
    if (!options.endpoint) throw new RouterUnreachableError(`router ${routerId} has no device endpoint`);
    await this.detach(routerId);
    const device: Device = {
      name: options.name,
      endpoint: options.endpoint,
      reachable: false,
      enabled: true,
    };
    this.devices.set(routerId, device);
    await this.probe(device);
    device.probe = setInterval(() => void this.probe(device), this.probeIntervalMs).unref();
  }

  async detach(routerId: string): Promise<void> {
    const device = this.devices.get(routerId);
    if (!device) return;
    this.devices.delete(routerId);
    clearInterval(device.probe);
    const connection = device.connection;
    device.connection = undefined;
    (await connection?.catch(() => undefined))?.close();
  }

  isOnline(routerId: string): boolean {
    const device = this.devices.get(routerId);
    return device?.enabled === true && device.reachable;
  }

  setOnline(routerId: string, online: boolean): void {
    const device = this.devices.get(routerId);
    if (device) device.enabled = online;
  }

  /** Every command of a device may change it; the device keeps its own configuration (no snapshot). */
  mayChange(): boolean {
    return true;
  }

  async command(
    routerId: string,
    command: string,
    parameters = "",
    options: { signal?: AbortSignal } = {},
  ): Promise<RouterRecord[]> {
    const device = this.reachable(routerId);
    if (command === CONFIG_READ_COMMAND && parameters.trim() === "")
      return [{ ret: await this.readConfiguration(device, options.signal) }];
    const attributes: Record<string, string> = {};
    const queries: string[] = [];
    for (const word of splitWords(parameters)) {
      if (word.startsWith("?")) queries.push(word);
      else if (word.startsWith("=")) {
        const eq = word.indexOf("=", 1);
        attributes[eq < 0 ? word.slice(1) : word.slice(1, eq)] = eq < 0 ? "" : word.slice(eq + 1);
      } else if (!word.startsWith(".tag=")) throw new RouterCommandError(`unknown parameter ${word}`);
    }
    const reply = await this.call(device, { command, attributes, queries }, options.signal);
    if (reply.records.length > 0) return reply.records.map(toServiceRecord);
    return reply.done.ret === undefined ? [] : [{ ret: reply.done.ret }];
  }

  /**
   * The full configuration read (docs/plan.md). Over SSH the console prints it: one command. The RouterOS API
   * (and REST) answer `/export` with no records, so there the export goes to a file of its own, is read back as
   * a backup is, and removed whatever happened: three API sentences inside the one synchronous request.
   */
  private async readConfiguration(device: Device, signal: AbortSignal | undefined): Promise<string> {
    const connection = await this.connection(device);
    if (connection.exportText) {
      const exporting = connection.exportText({
        timeoutMs: this.commandTimeoutMs,
        ...(signal ? { signal } : {}),
      });
      return this.answered(device, exporting);
    }
    const name = `routerjobs-read-${randomUUID().slice(0, 8)}`;
    await this.call(device, { command: "/export", attributes: { file: name } }, signal);
    try {
      return await this.readFile(device, `${name}.rsc`, signal);
    } finally {
      await this.call(device, { command: "/file/remove", attributes: { numbers: `${name}.rsc` } }).catch(
        () => undefined,
      );
    }
  }

  /**
   * `/export file=<name>`: the configuration as a script file on the device, `<name>.rsc`. With the endpoint's
   * `binaryBackup`, then also `/system/backup/save name=<name>` (`<name>.backup`), which holds what no export
   * does: user passwords, certificates and their private keys. The job keeps the one name, and the export
   * stays: the portal's download (`readBackup`) reads the `.rsc`, and the restore prefers the `.backup`.
   */
  async backup(routerId: string, name: string): Promise<string> {
    const device = this.reachable(routerId);
    await this.call(device, { command: "/export", attributes: { file: name } });
    if (device.endpoint.binaryBackup) {
      // Unencrypted: an encrypted backup needs its password to load, so the service would have to keep one
      // more secret per router, and a restore would have to carry it in a script. The file stays on the
      // router's own disk, as the export beside it; whoever can read the router's files can read both.
      await this.call(device, {
        command: "/system/backup/save",
        attributes: { name, "dont-encrypt": "yes" },
      });
    }
    return `${name}.rsc`;
  }

  /**
   * The `.rsc` file `backup` wrote, read with `/file/print` (docs/plan.md). `/export` hides sensitive values by
   * default, so the file holds no secrets. Older RouterOS versions hand over only the first few KiB of a file's
   * `contents`: a file larger than what came back is refused rather than returned cut short.
   */
  async readBackup(routerId: string, name: string): Promise<string> {
    return this.readFile(this.reachable(routerId), name);
  }

  private async readFile(device: Device, name: string, signal?: AbortSignal): Promise<string> {
    const reply = await this.call(
      device,
      {
        command: "/file/print",
        attributes: { ".proplist": "name,size,contents" },
        queries: [`?name=${name}`],
      },
      signal,
    );
    const file = reply.records[0];
    if (!file) throw new RouterCommandError(`no file ${name} on the router`);
    const contents = file.contents ?? "";
    const size = Number(file.size);
    if (Number.isFinite(size) && Buffer.byteLength(contents) < size) {
      throw new RouterCommandError(
        `${name} is ${size} bytes but the router's API gave ${Buffer.byteLength(contents)} of them`,
      );
    }
    return contents;
  }

  async runScript(
    routerId: string,
    script: string,
    options: { signal?: AbortSignal; jobName?: string; resumed?: boolean } = {},
  ): Promise<ScriptOutcome> {
    const device = this.reachable(routerId);
    const entry = options.jobName ?? `routerjobs-${Date.now().toString(36)}`;
    const deadline = Date.now() + this.jobTimeoutMs;
    let uploaded = false;
    /** The entry was read back at least once in this run: gone afterwards, it was removed on the router. */
    let seen = false;
    /** The outcome read before this run removed the entry: the removal may have landed without its answer. */
    let outcome: ScriptOutcome | undefined;
    /** The attempt whose `/execute` the router acknowledged in this run: its wrapper will come. */
    let launched: string | undefined;
    for (;;) {
      options.signal?.throwIfAborted();
      try {
        const found = await this.entry(device, entry);
        if (found === undefined && seen) return outcome ?? failure(ENTRY_REMOVED_DURING_JOB);
        if (found !== undefined) seen = true;
        // A resumed job without an entry: the dead instance may have run it and removed the entry already.
        if (found === undefined && options.resumed && !uploaded) return failure(RESUMED_WITHOUT_ENTRY);
        if (found === undefined) {
          uploaded = true;
          await this.call(device, {
            command: "/system/script/add",
            attributes: { name: entry, source: script, comment: loadedComment() },
          });
          continue;
        }
        const state = parseJobComment(found.comment);
        if (state.state === "loaded") {
          launched = await this.start(device, found.id, entry);
          continue;
        }
        // `started` under an attempt whose `/execute` the router never acknowledged (a dead instance's, or ours
        // when the connection dropped while it was sent): it may never come. Taken over under an attempt of our
        // own and started, unless that wrapper takes the entry first (job-entry.ts): the script runs once.
        if (
          state.state === "started" &&
          state.attempt !== undefined &&
          state.attempt !== launched &&
          state.boot === device.boot
        ) {
          const attempt = newAttempt();
          const script = takeOverScript(entry, device.boot, state.attempt, attempt);
          await this.call(device, { command: "/execute", attributes: { script, "as-string": "" } });
          const now = await this.entry(device, entry);
          if (now?.comment === startedComment(device.boot, attempt)) {
            await this.execute(device, entry, attempt, device.boot);
            launched = attempt;
          }
          continue;
        }
        const finished =
          state.state === "completed" || state.state === "failed" || !mayStillRun(state, device.boot);
        if (finished) {
          outcome =
            state.state === "completed"
              ? { ok: true, output: "" }
              : failure(state.state === "failed" ? state.error : RESTARTED_DURING_JOB);
          await this.call(device, { command: "/system/script/remove", attributes: { ".id": found.id } });
          return outcome;
        }
      } catch (error) {
        // The device went away mid-job: wait for it and read the entry again. Anything else ends the job.
        if (!(error instanceof RouterUnreachableError)) throw error;
      }
      if (Date.now() > deadline) {
        throw new RouterTimeoutError(
          `the device did not report the outcome of ${entry} within ${this.jobTimeoutMs} ms; see its log`,
        );
      }
      await pause(this.jobPollMs, options.signal);
    }
  }

  /** Marks the entry `started` under the current boot and a new attempt, starts it: the attempt's name. */
  private async start(device: Device, id: string, entry: string): Promise<string> {
    const boot = device.boot;
    const attempt = newAttempt();
    await this.call(device, {
      command: "/system/script/set",
      attributes: { ".id": id, comment: startedComment(boot, attempt) },
    });
    await this.execute(device, entry, attempt, boot);
    return attempt;
  }

  /**
   * `/execute` of the wrapper, sent only in the boot the entry names: a reconnect to a rebooted router in
   * between leaves the entry `started` under the old boot, which the next read fails as a restart.
   */
  private async execute(device: Device, entry: string, attempt: string, boot: string | undefined) {
    await this.call(
      device,
      { command: "/execute", attributes: { script: jobWrapper(entry, boot, attempt) } },
      undefined,
      { boot },
    );
  }

  /** The job's `/system/script` entry, if the device has it. */
  private async entry(device: Device, name: string): Promise<{ id: string; comment: string } | undefined> {
    const reply = await this.call(device, {
      command: "/system/script/print",
      attributes: { ".proplist": ".id,comment" },
      queries: [`?name=${name}`],
    });
    const record = reply.records[0];
    return record?.[".id"] ? { id: record[".id"], comment: record.comment ?? "" } : undefined;
  }

  private reachable(routerId: string): Device {
    const device = this.devices.get(routerId);
    if (!device) throw new RouterUnreachableError(`router ${routerId} is not attached`);
    if (!device.enabled) throw new RouterUnreachableError("it is offline");
    return device;
  }

  /** One command on the device's connection, opening it when needed; errors become the back end's. */
  private async call(
    device: Device,
    sentence: { command: string; attributes?: Record<string, string>; queries?: string[] },
    signal?: AbortSignal,
    expect?: { boot: string | undefined },
  ) {
    const client = await this.connection(device);
    if (expect && device.boot !== expect.boot) {
      throw new RouterUnreachableError("the router rebooted since the job's entry was marked started");
    }
    return this.answered(
      device,
      client.command(
        { command: sentence.command, attributes: sentence.attributes ?? {}, queries: sentence.queries ?? [] },
        { timeoutMs: this.commandTimeoutMs, ...(signal ? { signal } : {}) },
      ),
    );
  }

  /** The answer of one command on the device's connection; its errors become the back end's. */
  private async answered<T>(device: Device, answer: Promise<T>): Promise<T> {
    try {
      const reply = await answer;
      device.reachable = true;
      return reply;
    } catch (error) {
      if (error instanceof RouterApiTrapError) throw new RouterCommandError(error.routerMessage);
      // A command the transport cannot say (over SSH: a print without .proplist), with what to send instead.
      if (error instanceof RouterApiOptionsError) throw new RouterCommandError(error.message);
      if (error instanceof RouterApiTimeoutError) throw new RouterTimeoutError(error.message);
      // Over REST every request logs in: a password changed on the router shows here, not at connect.
      if (error instanceof RouterApiLoginError) throw new RouterUnreachableError(error.message);
      if (error instanceof RouterApiConnectionError) {
        this.lost(device);
        throw new RouterUnreachableError(error.message);
      }
      throw error;
    }
  }

  private connection(device: Device): Promise<DeviceConnection> {
    if (!device.connection) {
      const opening = this.open(device);
      device.connection = opening;
      opening.catch((error: unknown) => {
        if (device.connection === opening) device.connection = undefined;
        device.reachable = false;
        return error;
      });
    }
    return device.connection.catch((error: unknown) => {
      if (error instanceof RouterApiLoginError) throw new RouterUnreachableError(error.message);
      if (error instanceof RouterApiConnectionError || error instanceof RouterApiTimeoutError)
        throw new RouterUnreachableError(error.message);
      throw error;
    });
  }

  /** Connects, logs in and reads the boot marker, so that every job decision on this connection knows it. */
  private async open(device: Device): Promise<DeviceConnection> {
    const { endpoint } = device;
    const options = {
      host: endpoint.host,
      ...(endpoint.port === undefined ? {} : { port: endpoint.port }),
      user: endpoint.user,
      password: endpoint.password,
      ...(endpoint.plaintext ? { allowPlaintext: true } : { tls: endpoint.tls ?? {} }),
      connectTimeoutMs: this.connectTimeoutMs,
      commandTimeoutMs: this.commandTimeoutMs,
    };
    const client: DeviceConnection =
      endpoint.transport === "ssh"
        ? await this.openSsh(endpoint)
        : endpoint.transport === "rest"
          ? await RouterRestClient.connect(options)
          : await RouterApiClient.connect({ ...options, loginTimeoutMs: this.connectTimeoutMs });
    try {
      const reply = await client.command(
        {
          command: "/execute",
          attributes: { script: bootMarkerScript(randomBytes(8).toString("hex")), "as-string": "" },
          queries: [],
        },
        { timeoutMs: this.commandTimeoutMs },
      );
      // Only a marker as the script writes it goes into the scripts this back end sends.
      const boot = reply.done.ret?.trim();
      device.boot = boot && /^[0-9a-f]+$/.test(boot) ? boot : undefined;
    } catch (error) {
      // A router that refuses the script (a user without the policy for it) still serves; its jobs then wait
      // for their outcome as before, without telling a reboot apart.
      if (!(error instanceof RouterApiTrapError)) {
        client.close();
        throw error;
      }
      device.boot = undefined;
    }
    return client;
  }

  /** ssh2 is loaded with the SSH client, on the first router that uses it. */
  private async openSsh(endpoint: DeviceEndpoint): Promise<DeviceConnection> {
    const { RouterSshClient } = await import("../../routeros/api/ssh-client.js");
    return RouterSshClient.connect({
      host: endpoint.host,
      ...(endpoint.port === undefined ? {} : { port: endpoint.port }),
      user: endpoint.user,
      password: endpoint.password,
      hostKey: endpoint.sshHostKey ?? "",
      connectTimeoutMs: this.connectTimeoutMs,
      commandTimeoutMs: this.commandTimeoutMs,
    });
  }

  private lost(device: Device): void {
    const connection = device.connection;
    device.connection = undefined;
    device.reachable = false;
    void connection?.then((client) => client.close()).catch(() => {});
  }

  private async probe(device: Device): Promise<void> {
    try {
      // A named property: over SSH a print reads only what it names.
      await this.call(device, { command: "/system/identity/print", attributes: { ".proplist": "name" } });
    } catch {
      device.reachable = false;
    }
  }
}

/** The job's error as the wrapper wrote it: the router's text, with the line when it names one. */
function failure(text: string): ScriptOutcome {
  const line = /\(line (\d+)/.exec(text)?.[1];
  return { ok: false, output: "", error: text, ...(line ? { line: Number(line) } : {}) };
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // The listener goes with the pause: a job polls thousands of times on one signal.
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", abort, { once: true });
  });
}
