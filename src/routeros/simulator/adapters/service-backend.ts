/**
 * `RouterBackend` over simulated routers, with the knobs tests and benchmarks need: per-command latency,
 * a tunnel that goes down (`setOnline`), `/system reboot` taking the router offline for a while, and random
 * `failure: timeout` faults. Every random choice comes from one seeded PRNG, so a run repeats exactly.
 */

import {
  type RouterBackend,
  RouterCommandError,
  RouterUnreachableError,
  type ScriptOutcome,
} from "../../../contract/routers/router-backend.js";
import type { RouterRecord } from "../../../contract/sync.js";
import { UsageError } from "../../../errors.js";
import { RouterOsError } from "../../errors.js";
import { allMenus } from "../all-menus.js";
import { exportConfig } from "../export.js";
import { SeededRandom } from "../random.js";
import {
  checkReachability,
  type ResolvedPath,
  resolvePath,
  type ServicePath,
} from "../reachability/index.js";
import { SimulatedRouter } from "../router.js";
import type { RouterSnapshot } from "../snapshot.js";
import { apiCommand } from "./api-view.js";

export interface SimulatedBackendOptions {
  /** Seeds faults and each router's derived values (MACs, neighbours). @default 1 */
  readonly seed?: number;
  /** Delay before each command a router runs. @default 0 */
  readonly commandLatencyMs?: number;
  /** How the command latency is waited out; a test passes one it releases by hand. @default a timer */
  readonly wait?: (ms: number) => Promise<void>;
  /** Probability (0..1) that a command fails with `failure: timeout`. @default 0 */
  readonly faultRate?: number;
  /** How long a router stays offline after `/system reboot` or a backup load. @default 30000 */
  readonly rebootOfflineMs?: number;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /** Real milliseconds per `:delay` millisecond. @default 1 */
  readonly delayScale?: number;
  /** Statements one script may execute; a runaway loop then fails its job. @default 1,000,000 */
  readonly maxScriptStatements?: number;
  /**
   * How the service reaches each router (docs/safe-change.md). With it, a call fails as unreachable while
   * the router's configuration cuts that path, as it would on a device; the path is resolved on the router's
   * configuration when it is attached. @default - every attached, online router is reached
   */
  readonly reach?: ServicePath;
}

interface Device {
  readonly router: SimulatedRouter;
  online: boolean;
  offlineUntilMs: number;
  /** The service's way in, when the backend models it and it was open when the router was attached. */
  readonly path?: ResolvedPath;
  /** Scheduler tasks running in the background (isOnline started them). */
  scheduling?: Promise<void> | undefined;
  rerun?: boolean;
}

const READ_ONLY = /\/(print|getall|get|export|monitor|ping)$/;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class SimulatedBackend implements RouterBackend {
  private readonly devices = new Map<string, Device>();
  private readonly random: SeededRandom;
  private readonly seed: number;
  private readonly commandLatencyMs: number;
  private readonly wait: (ms: number) => Promise<void>;
  private readonly faultRate: number;
  private readonly rebootOfflineMs: number;
  private readonly now: () => Date;
  private readonly delayScale: number;
  private readonly maxScriptStatements: number | undefined;
  private readonly reach: ServicePath | undefined;
  private readonly paths = new Map<string, ResolvedPath | undefined>();

  constructor(options: SimulatedBackendOptions = {}) {
    this.seed = options.seed ?? 1;
    this.commandLatencyMs = options.commandLatencyMs ?? 0;
    this.wait = options.wait ?? sleep;
    this.faultRate = options.faultRate ?? 0;
    this.rebootOfflineMs = options.rebootOfflineMs ?? 30_000;
    this.now = options.now ?? (() => new Date());
    this.delayScale = options.delayScale ?? 1;
    this.maxScriptStatements = options.maxScriptStatements;
    this.reach = options.reach;
    const checks: [string, number, number][] = [
      ["commandLatencyMs", this.commandLatencyMs, Number.POSITIVE_INFINITY],
      ["faultRate", this.faultRate, 1],
      ["rebootOfflineMs", this.rebootOfflineMs, Number.POSITIVE_INFINITY],
      ["delayScale", this.delayScale, Number.POSITIVE_INFINITY],
    ];
    for (const [name, value, max] of checks) {
      if (!(value >= 0 && value <= max))
        throw new UsageError(`${name} must be between 0 and ${max} (got ${value})`);
    }
    this.random = new SeededRandom(this.seed);
  }

  /** A new router (identity `name`), the router `state` describes, or, without state, the one attached already. */
  async attach(routerId: string, options: { name: string; state?: unknown }): Promise<void> {
    if (options.state === undefined && this.devices.has(routerId)) return;
    const router = new SimulatedRouter({
      name: options.name,
      seedText: `${this.seed}:${routerId}`,
      now: this.now,
      delayScale: this.delayScale,
      ...(this.maxScriptStatements ? { maxScriptStatements: this.maxScriptStatements } : {}),
      beforeCommand: () => this.beforeCommand(routerId),
    });
    if (options.state !== undefined) router.restore(options.state);
    // The path is resolved when the router is first attached, and kept when the service attaches it again
    // from its saved state (which may be a state that cuts the path). A path the model finds cut already does
    // not describe how this router is reached: it is not enforced.
    if (this.reach && !this.paths.has(routerId)) {
      const path = resolvePath(router, this.reach);
      this.paths.set(routerId, checkReachability(router, path).reachable ? path : undefined);
    }
    const path = this.paths.get(routerId);
    this.devices.set(routerId, { router, online: true, offlineUntilMs: 0, ...(path ? { path } : {}) });
  }

  async detach(routerId: string): Promise<void> {
    this.devices.delete(routerId);
  }

  /** The device itself, for tests and tools. */
  router(routerId: string): SimulatedRouter {
    return this.device(routerId).router;
  }

  setOnline(routerId: string, online: boolean): void {
    this.device(routerId).online = online;
  }

  /**
   * Whether the service reaches the router now: attached, online, not rebooting, and (with `reach`) its
   * configuration leaving the service's path open. Asking also lets the router run its due scheduler tasks
   * in the background, as a device runs them on its own clock whether or not anyone reaches it: a revert
   * armed before a change that cut the service off fires, and the router comes back.
   */
  isOnline(routerId: string): boolean {
    const device = this.devices.get(routerId);
    if (!device) return false;
    this.kickScheduler(device);
    return (
      device.online && this.now().getTime() >= device.offlineUntilMs && this.pathCut(device) === undefined
    );
  }

  /** One background run at a time; a kick meanwhile asks for one more run after it (the clock moved on). */
  private kickScheduler(device: Device): void {
    if (device.scheduling) {
      device.rerun = true;
      return;
    }
    device.scheduling = device.router
      .runScheduler()
      .then((ran) => {
        if (ran > 0) this.settleReboot(device);
      })
      .finally(() => {
        device.scheduling = undefined;
        if (device.rerun) {
          device.rerun = false;
          this.kickScheduler(device);
        }
      });
  }

  /** Resolves when the router's background scheduler runs, the ones asked for meanwhile included, are done. */
  async schedulerIdle(routerId: string): Promise<void> {
    const device = this.devices.get(routerId);
    while (device?.scheduling) await device.scheduling;
  }

  private pathCut(device: Device): string | undefined {
    if (!device.path) return undefined;
    const reach = checkReachability(device.router, device.path);
    return reach.reachable ? undefined : reach.reason;
  }

  /** Whether the router is attached and still offline after `/system reboot` or a backup load. */
  isRebooting(routerId: string): boolean {
    const device = this.devices.get(routerId);
    return device !== undefined && this.now().getTime() < device.offlineUntilMs;
  }

  async runScript(
    routerId: string,
    script: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ScriptOutcome> {
    const device = await this.reachable(routerId);
    try {
      return await device.router.runScript(script, options.signal);
    } finally {
      this.settleReboot(device);
    }
  }

  async backup(routerId: string, name: string): Promise<string> {
    return (await this.reachable(routerId)).router.saveBackup(name);
  }

  /**
   * A simulated backup is a saved configuration: it is loaded into a scratch copy of the router (the router
   * itself stays as it is) and exported there, secrets left out as `export` leaves them out.
   */
  async readBackup(routerId: string, name: string): Promise<string> {
    const device = await this.reachable(routerId);
    const scratch = new SimulatedRouter({ seedText: `${this.seed}:${routerId}`, now: this.now });
    scratch.restore(device.router.snapshot());
    try {
      scratch.loadBackup(name);
    } catch (error) {
      if (error instanceof RouterOsError) throw new RouterCommandError(`no backup ${name} on the router`);
      throw error;
    }
    return exportConfig(allMenus(), [], scratch).join("\n");
  }

  async command(
    routerId: string,
    command: string,
    parameters?: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<RouterRecord[]> {
    const device = await this.reachable(routerId);
    try {
      return await apiCommand(device.router, command, parameters, options.signal);
    } catch (error) {
      if (error instanceof RouterOsError) throw new RouterCommandError(error.message);
      throw error;
    } finally {
      this.settleReboot(device);
    }
  }

  /** Reads (`print`, `get`, `export`, `monitor`, `ping`) leave the configuration as it was. */
  mayChange(_routerId: string, command: string): boolean {
    return !READ_ONLY.test(command);
  }

  snapshot(routerId: string): RouterSnapshot {
    return this.device(routerId).router.snapshot();
  }

  private device(routerId: string): Device {
    const device = this.devices.get(routerId);
    if (!device) throw new RouterUnreachableError(`router ${routerId} is not attached`);
    return device;
  }

  /**
   * The router, if the service reaches it now: online, its due scheduler tasks run first (a revert may fire
   * and reboot it), and its configuration leaving the service's path open.
   */
  private async reachable(routerId: string): Promise<Device> {
    const device = this.device(routerId);
    await device.scheduling;
    if ((await device.router.runScheduler()) > 0) this.settleReboot(device);
    if (!device.online || this.now().getTime() < device.offlineUntilMs)
      throw new RouterUnreachableError(`router ${routerId} is offline`);
    const cut = this.pathCut(device);
    if (cut) throw new RouterUnreachableError(`router ${routerId} does not answer the service: ${cut}`);
    return device;
  }

  /** Latency, then the tunnel (it may have dropped mid-script), then a possible fault. */
  private async beforeCommand(routerId: string): Promise<void> {
    if (this.commandLatencyMs > 0) await this.wait(this.commandLatencyMs);
    // The session a call opened stays up when the call's own commands cut the path for new connections.
    const device = this.devices.get(routerId);
    if (!device?.online || this.now().getTime() < device.offlineUntilMs)
      throw new RouterUnreachableError(`router ${routerId} went offline`);
    if (this.faultRate > 0 && this.random.next() < this.faultRate)
      throw new RouterOsError("failure: timeout");
  }

  private settleReboot(device: Device): void {
    if (!device.router.takeRebootRequest()) return;
    device.offlineUntilMs = this.now().getTime() + this.rebootOfflineMs;
    device.router.reboot();
  }
}
