/**
 * Simulated routers and real devices side by side: each router goes to the back end its kind needs (a router
 * attached with a device endpoint is a device), and every later call follows it there.
 */

import type { DeviceEndpoint } from "../../contract/routers/device-endpoint.js";
import {
  type RouterBackend,
  RouterUnreachableError,
  type ScriptOutcome,
} from "../../contract/routers/router-backend.js";
import type { RouterRecord } from "../../contract/sync.js";

export class MixedBackend implements RouterBackend {
  private readonly owners = new Map<string, RouterBackend>();

  constructor(
    private readonly simulated: RouterBackend,
    private readonly devices: RouterBackend,
  ) {}

  async attach(routerId: string, options: { name: string; state?: unknown; endpoint?: DeviceEndpoint }) {
    const owner = options.endpoint ? this.devices : this.simulated;
    const previous = this.owners.get(routerId);
    // A router that became a device (or went back to the simulator) leaves its old back end.
    if (previous && previous !== owner) await previous.detach(routerId);
    this.owners.set(routerId, owner);
    await owner.attach(routerId, options);
  }

  async detach(routerId: string): Promise<void> {
    await this.owners.get(routerId)?.detach(routerId);
    this.owners.delete(routerId);
  }

  isOnline(routerId: string): boolean {
    return this.owners.get(routerId)?.isOnline(routerId) ?? false;
  }

  setOnline(routerId: string, online: boolean): void {
    this.owners.get(routerId)?.setOnline?.(routerId, online);
  }

  runScript(
    routerId: string,
    script: string,
    options?: { signal?: AbortSignal; jobName?: string; resumed?: boolean },
  ): Promise<ScriptOutcome> {
    return this.owner(routerId).runScript(routerId, script, options);
  }

  backup(routerId: string, name: string): Promise<string> {
    return this.owner(routerId).backup(routerId, name);
  }

  readBackup(routerId: string, name: string): Promise<string> {
    return this.owner(routerId).readBackup(routerId, name);
  }

  command(
    routerId: string,
    command: string,
    parameters?: string,
    options?: { signal?: AbortSignal },
  ): Promise<RouterRecord[]> {
    return this.owner(routerId).command(routerId, command, parameters, options);
  }

  mayChange(routerId: string, command: string): boolean {
    return this.owner(routerId).mayChange(routerId, command);
  }

  snapshot(routerId: string): unknown {
    return this.owners.get(routerId)?.snapshot?.(routerId);
  }

  private owner(routerId: string): RouterBackend {
    const owner = this.owners.get(routerId);
    if (!owner) throw new RouterUnreachableError(`router ${routerId} is not attached`);
    return owner;
  }
}
