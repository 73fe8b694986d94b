import { RouterjobsError } from "../../errors.js";
import type { RouterRecord } from "../sync.js";
import type { DeviceEndpoint } from "./device-endpoint.js";

/**
 * What the service needs from a router. The simulated RouterOS router is the first back end; a back end for
 * real devices (RouterOS REST/API over a tunnel) implements the same interface.
 */
export interface RouterBackend {
  /**
   * Creates (or re-attaches to) a router: `state` is what `snapshot` returned last (a simulated router), or
   * `endpoint` says where the device is (a real router).
   */
  attach(
    routerId: string,
    options: { name: string; state?: unknown; endpoint?: DeviceEndpoint },
  ): Promise<void>;
  detach(routerId: string): Promise<void>;
  /** Whether the management tunnel is up. A job for an offline router waits. */
  isOnline(routerId: string): boolean;
  /** The operator takes the management tunnel down or up (`routerjobs service router offline|online`). */
  setOnline?(routerId: string, online: boolean): void;
  /**
   * Runs a script (RouterOS commands). Never throws for a script error: it reports it. `jobName` names the
   * job's traces on the router (a device finds a job it started before a lost connection by it). `resumed`: an
   * instance that died may have started this job already (a device router's job after a service restart).
   */
  runScript(
    routerId: string,
    script: string,
    options?: { signal?: AbortSignal; jobName?: string; resumed?: boolean },
  ): Promise<ScriptOutcome>;
  /** Takes a backup of the configuration and returns its name. */
  backup(routerId: string, name: string): Promise<string>;
  /**
   * The configuration a backup holds, as export text (`name` is what `backup` returned). Secrets are left out,
   * as RouterOS's `export` leaves them out without `show-sensitive`. Throws `RouterCommandError` when the
   * router has no such backup or cannot hand it over whole, `RouterUnreachableError` when it is offline.
   */
  readBackup(routerId: string, name: string): Promise<string>;
  /**
   * A synchronous API call: `/ip/arp/print` with API words. Returns records keyed the service's way.
   * Throws `RouterCommandError` (router said no), `RouterUnreachableError` (offline), `RouterTimeoutError`.
   * `signal` ends the call when the caller stops waiting (a script run by `/execute` stops with it).
   */
  command(
    routerId: string,
    command: string,
    parameters?: string,
    options?: { signal?: AbortSignal },
  ): Promise<RouterRecord[]>;
  /**
   * Whether `command` may change the router, so that a back end whose state the service keeps (`snapshot`)
   * has it saved after a synchronous call. Only the back end knows its commands.
   */
  mayChange(routerId: string, command: string): boolean;
  /**
   * Serialisable state (configuration, backups, log) for a back end whose routers live in the service (the
   * simulator), persisted between restarts and shared by instances. A device keeps its own: no snapshot.
   */
  snapshot?(routerId: string): unknown;
}

export type ScriptOutcome =
  | { readonly ok: true; readonly output: string }
  | { readonly ok: false; readonly output: string; readonly error: string; readonly line?: number };

/** The router refused the command (its own text). */
/**
 * A device job's outcome when the router rebooted before the service read it (the device back end's text;
 * apply reads it to follow a safe change whose revert was that reboot).
 */
export const RESTARTED_DURING_JOB =
  "the router restarted while the job ran; its effect is unknown, see the backup";

export class RouterCommandError extends RouterjobsError {
  override readonly name = "RouterCommandError";
  override readonly code = "RJ_ERR_COMMAND_FAILED";
}
/** The router could not be reached (offline, refused, dropped). */
export class RouterUnreachableError extends RouterjobsError {
  override readonly name = "RouterUnreachableError";
  override readonly code = "RJ_ERR_NETWORK";
}
/** The router did not answer in time. */
export class RouterTimeoutError extends RouterjobsError {
  override readonly name = "RouterTimeoutError";
  override readonly code = "RJ_ERR_TIMEOUT";
}
