/**
 * `RouterBackend` for real RouterOS devices, over the RouterOS API (src/routeros-api): one connection per
 * router, reused and reopened when it drops; a health probe that marks a router offline and online.
 *
 * A job's script runs on the device as RouterOS runs anything long: uploaded as a `/system/script` entry named
 * after the job, then started by `/execute` (a background job of the router, which goes on if our connection
 * drops) under a wrapper that writes the outcome into the entry's comment:
 *
 *   routerjobs:loaded -> routerjobs:started (set by us, just before /execute) -> routerjobs:running (the
 *   wrapper's first act) -> routerjobs:completed | routerjobs:failed:<the router's error text>
 *
 * The outcome is read back from the comment and the entry removed. A connection lost at any point is reopened
 * and the entry read again, so the outcome is never lost and the script never started twice: an entry found
 * `loaded` was never started and is started now; one found `started`, `running` or later is only waited for.
 * Script output (`:put`) of a background job is not returned to the service; the device's log has it.
 */
import type { RouterRecord } from "../../contract/sync.js";
import { RouterApiClient } from "../../routeros-api/client.js";
import {
  RouterApiConnectionError,
  RouterApiLoginError,
  RouterApiTimeoutError,
  RouterApiTrapError,
} from "../../routeros-api/errors.js";
import { splitWords, toServiceRecord } from "../../routeros-api/service-view.js";
import {
  type RouterBackend,
  RouterCommandError,
  RouterTimeoutError,
  RouterUnreachableError,
  type ScriptOutcome,
} from "./backend.js";
import type { DeviceEndpoint } from "./endpoint.js";

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

interface Device {
  readonly name: string;
  readonly endpoint: DeviceEndpoint;
  connection?: Promise<RouterApiClient>;
  /** The last probe or command reached the device. */
  reachable: boolean;
  /** The operator's switch (`service router offline|online`). */
  enabled: boolean;
  probe?: NodeJS.Timeout;
}

const PREFIX = "routerjobs:";

/** The wrapper `/execute` runs: marks the entry running, runs it, writes the outcome (RouterOS 7.13+). */
export function jobWrapper(entry: string): string {
  const set = (comment: string) => `/system script set [find name="${entry}"] comment=${comment}`;
  return [
    set(`"${PREFIX}running"`),
    ":local failed false",
    `:onerror e in={ /system script run [find name="${entry}"] } do={ :set failed true; ${set(`("${PREFIX}failed:" . $e)`)} }`,
    `:if (!$failed) do={ ${set(`"${PREFIX}completed"`)} }`,
  ].join("\n");
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

  /** `/export file=<name>`: the configuration as a script file on the device, `<name>.rsc`. */
  async backup(routerId: string, name: string): Promise<string> {
    await this.call(this.reachable(routerId), { command: "/export", attributes: { file: name } });
    return `${name}.rsc`;
  }

  async runScript(
    routerId: string,
    script: string,
    options: { signal?: AbortSignal; jobName?: string } = {},
  ): Promise<ScriptOutcome> {
    const device = this.reachable(routerId);
    const entry = options.jobName ?? `routerjobs-${Date.now().toString(36)}`;
    const deadline = Date.now() + this.jobTimeoutMs;
    for (;;) {
      options.signal?.throwIfAborted();
      try {
        const found = await this.entry(device, entry);
        if (found === undefined) {
          await this.call(device, {
            command: "/system/script/add",
            attributes: { name: entry, source: script, comment: `${PREFIX}loaded` },
          });
          continue;
        }
        const state = found.comment.startsWith(PREFIX) ? found.comment.slice(PREFIX.length) : "";
        if (state === "loaded") {
          await this.call(device, {
            command: "/system/script/set",
            attributes: { ".id": found.id, comment: `${PREFIX}started` },
          });
          await this.call(device, { command: "/execute", attributes: { script: jobWrapper(entry) } });
          continue;
        }
        if (state === "completed" || state.startsWith("failed:")) {
          await this.call(device, { command: "/system/script/remove", attributes: { ".id": found.id } });
          return state === "completed" ? { ok: true, output: "" } : failure(state.slice("failed:".length));
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
  ) {
    const client = await this.connection(device);
    try {
      const reply = await client.command(
        { command: sentence.command, attributes: sentence.attributes ?? {}, queries: sentence.queries ?? [] },
        { timeoutMs: this.commandTimeoutMs, ...(signal ? { signal } : {}) },
      );
      device.reachable = true;
      return reply;
    } catch (error) {
      if (error instanceof RouterApiTrapError) throw new RouterCommandError(error.routerMessage);
      if (error instanceof RouterApiTimeoutError) throw new RouterTimeoutError(error.message);
      if (error instanceof RouterApiConnectionError) {
        this.lost(device);
        throw new RouterUnreachableError(error.message);
      }
      throw error;
    }
  }

  private connection(device: Device): Promise<RouterApiClient> {
    if (!device.connection) {
      const { endpoint } = device;
      const opening = RouterApiClient.connect({
        host: endpoint.host,
        ...(endpoint.port === undefined ? {} : { port: endpoint.port }),
        user: endpoint.user,
        password: endpoint.password,
        ...(endpoint.plaintext ? { allowPlaintext: true } : { tls: endpoint.tls ?? {} }),
        connectTimeoutMs: this.connectTimeoutMs,
        loginTimeoutMs: this.connectTimeoutMs,
        commandTimeoutMs: this.commandTimeoutMs,
      });
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

  private lost(device: Device): void {
    const connection = device.connection;
    device.connection = undefined;
    device.reachable = false;
    void connection?.then((client) => client.close()).catch(() => {});
  }

  private async probe(device: Device): Promise<void> {
    try {
      await this.call(device, { command: "/system/identity/print" });
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
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
