/**
 * The one way the service works a router, for a synchronous call and for a job alike: load the router's state
 * when the database holds a newer version than this instance's back end (another instance or an earlier run
 * saved it), run, save the state when the back end says the work may have changed it (with the job's
 * transition, in one transaction), and record the version saved. The back end stays private to this module.
 */

import { patiently } from "../../client/patience.js";
import type { DeviceEndpoint } from "../../contract/routers/device-endpoint.js";
import {
  type RouterBackend,
  RouterTimeoutError,
  RouterUnreachableError,
  type ScriptOutcome,
} from "../../contract/routers/router-backend.js";
import type { RouterRecord } from "../../contract/sync.js";
import { withLine } from "../../routeros/errors.js";
import { type RouterRow, routerState } from "../auth/directory.js";
import type { Database } from "../database/database.js";
import { fromJsonb } from "../database/jsonb.js";
import { isStorageFull, STORAGE_FULL_RETRY_AFTER_S } from "../database/storage-full.js";
import { isTransientConflict, retryTransient } from "../database/transient.js";
import { type ClaimedJob, finishJob, markStarted, recordBackup, saveRouterState } from "../jobs/lifecycle.js";

/** What the cycle needs of a router row. */
export type RouterRef = Pick<RouterRow, "id" | "name" | "online" | "state_version">;

export interface JobRunOptions {
  /** The instance that claimed the job: only the claim's holder starts it. */
  readonly instanceId: string;
  /** Aborts the script (the service is closing); `abortMessage` then becomes the job's error. */
  readonly signal: AbortSignal;
  readonly abortMessage: () => string;
  /** The service is closing: an outcome the store refuses is no longer retried (recovery ends the job). */
  readonly closing?: AbortSignal;
  readonly log?: (message: string, fields?: object) => void;
}

export type JobRunResult = "not-started" | "finished";

export class RouterCycle {
  /** The state version each router's back-end copy was loaded from or saved as. */
  private readonly versions = new Map<string, number>();
  private readonly online = new Map<string, boolean>();

  constructor(
    private readonly backend: RouterBackend,
    private readonly db: Database,
    private readonly options: {
      readonly now?: () => Date;
      /** Where a device router is (its password decrypted); undefined for a simulated router. */
      readonly endpointOf?: (routerId: string) => Promise<DeviceEndpoint | undefined>;
    } = {},
  ) {}

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** Brings this instance's copy of the router up to the database: state and the operator's online switch. */
  async load(router: RouterRef): Promise<void> {
    if (this.versions.get(router.id) !== router.state_version) {
      // Read only now: a router's state can be large.
      const state = fromJsonb(await routerState(this.db, router.id));
      const endpoint = await this.options.endpointOf?.(router.id);
      await this.backend.attach(router.id, {
        name: router.name,
        ...(state == null ? {} : { state }),
        ...(endpoint ? { endpoint } : {}),
      });
      this.versions.set(router.id, router.state_version);
      this.online.delete(router.id);
    }
    if (this.online.get(router.id) !== router.online) {
      this.backend.setOnline?.(router.id, router.online);
      this.online.set(router.id, router.online);
    }
  }

  /** Whether the router can take work now (after `load`). */
  isOnline(routerId: string): boolean {
    return this.backend.isOnline(routerId);
  }

  /**
   * One synchronous API call, bounded by `timeoutMs`: at the deadline the command is stopped on the router too
   * (a script left running would hold it for nobody) and the call fails with `RouterTimeoutError`.
   */
  async command(
    router: RouterRef,
    command: string,
    parameters: string | undefined,
    timeoutMs: number,
  ): Promise<RouterRecord[]> {
    if (!router.online) throw new RouterUnreachableError("it is offline");
    await this.load(router);
    const stop = new AbortController();
    try {
      const records = await withTimeout(
        this.backend.command(router.id, command, parameters, { signal: stop.signal }),
        timeoutMs,
      );
      if (this.backend.snapshot && this.backend.mayChange(router.id, command)) {
        this.recordSaved(
          router.id,
          await saveRouterState(this.db, router.id, this.backend.snapshot(router.id)),
        );
      }
      return records;
    } finally {
      stop.abort();
    }
  }

  /** The export text of a backup on the router (the portal's download). A read: nothing is saved. */
  async readBackup(router: RouterRef, name: string, timeoutMs: number): Promise<string> {
    if (!router.online) throw new RouterUnreachableError("it is offline");
    await this.load(router);
    return withTimeout(this.backend.readBackup(router.id, name), timeoutMs);
  }

  /**
   * Runs a claimed job: `running`, the backup when asked, the script, then `completed` or `failed` saved together
   * with the router's new state. A job deleted or recovered by another instance since its claim does not start.
   */
  async runJob(claimed: ClaimedJob, options: JobRunOptions): Promise<JobRunResult> {
    const { job: queued, router } = claimed;
    await this.load(router);
    const job = await markStarted(this.db, queued.id, options.instanceId, this.now());
    if (!job) return "not-started";
    let outcome: ScriptOutcome;
    try {
      // A resumed device job took its backup before its script started, in the instance that died.
      if (job.make_backup && !job.backup_name) {
        await recordBackup(
          this.db,
          job.id,
          await this.backend.backup(job.router_id, `routerjobs-job-${job.seq_id}`),
        );
      }
      outcome = await this.backend.runScript(job.router_id, job.script, {
        signal: options.signal,
        jobName: `routerjobs-job-${job.seq_id}`,
        ...(queued.status === "running" ? { resumed: true } : {}),
      });
    } catch (error) {
      // The back end throws only when it could not run the script at all (router gone mid-job, backup failed,
      // or the shutdown grace period ran out).
      const message = options.signal.aborted
        ? options.abortMessage()
        : (error as Error).message || String(error);
      outcome = { ok: false, output: "", error: message };
    }
    // A full disk: the outcome is written once space is back; meanwhile the router's queue waits for it, as it
    // must (the next job runs on the state this one left).
    const finish = (snapshot: unknown) =>
      untilStored(
        () =>
          retryTransient(() =>
            finishJob(
              this.db,
              job,
              { ok: outcome.ok, ...(outcome.ok ? {} : { error: describeFailure(outcome) }), snapshot },
              this.now(),
              options.instanceId,
            ),
          ),
        options,
      );
    let saved: Awaited<ReturnType<typeof finish>>;
    try {
      // A deadlock or serialization victim runs again with the same state: a conflict never drops a change.
      saved = await finish(this.snapshot(job.router_id, options));
    } catch (error) {
      if (isTransientConflict(error)) throw error;
      // The database refuses this state itself. The job must end all the same: a job left `started` would hold
      // the router's queue until a restart. The state then lives only in this instance's back end.
      options.log?.("router state not saved", { routerId: job.router_id, err: error });
      saved = await finish(undefined);
    }
    if (typeof saved === "object") {
      // Another instance recovered the job while this one was frozen: its outcome stands (failed: interrupted),
      // nothing of this run is written, and this instance reloads the router from the database next time.
      options.log?.("job recovered by another instance: this run's outcome and state were not written", {
        routerId: job.router_id,
        jobId: job.id,
      });
      this.versions.delete(job.router_id);
    } else if (saved !== undefined) this.recordSaved(job.router_id, saved);
    return "finished";
  }

  /** The router was removed: this instance forgets it. */
  async detach(routerId: string): Promise<void> {
    this.versions.delete(routerId);
    this.online.delete(routerId);
    await this.backend.detach(routerId);
  }

  /**
   * The router's state after a job, for back ends that keep it in the service. A router removed while its job
   * ran is gone from the back end: its job is already `deleted`, so it only has to end, with nothing to save.
   */
  private snapshot(routerId: string, options: JobRunOptions): unknown {
    if (!this.backend.snapshot) return undefined;
    try {
      return this.backend.snapshot(routerId);
    } catch (error) {
      options.log?.("router state not saved", { routerId, err: error });
      return undefined;
    }
  }

  private recordSaved(routerId: string, version: number): void {
    this.versions.set(routerId, version);
  }
}

/** `write`, tried again while the store refuses it for lack of space, until it is stored or the service closes. */
async function untilStored<T>(write: () => Promise<T>, options: JobRunOptions): Promise<T> {
  const refusedForSpace = (error: unknown) => {
    if (!isStorageFull(error)) return false;
    options.log?.("job outcome refused by a full disk: written again once there is space", { err: error });
    return true;
  };
  // Written once whatever happens, closing or not: a closing service still records what the script did.
  let refused: unknown;
  try {
    return await write();
  } catch (error) {
    if (!refusedForSpace(error) || options.closing?.aborted) throw error;
    refused = error;
  }
  try {
    return await patiently(write, {
      deadline: Number.POSITIVE_INFINITY,
      ...(options.closing ? { signal: options.closing } : {}),
      schedule: { firstMs: 250, maxMs: STORAGE_FULL_RETRY_AFTER_S * 1000 },
      transient: (error) => {
        if (!refusedForSpace(error)) return false;
        refused = error;
        return true;
      },
    });
  } catch (error) {
    // Closing: the refusal stands, and recovery ends the job as interrupted at the next start.
    throw options.closing?.aborted ? refused : error;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RouterTimeoutError(`the router did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The router's error text and line, as the job's `error` carries it. */
export function describeFailure(outcome: Extract<ScriptOutcome, { ok: false }>): string {
  return withLine(outcome.error, outcome.line);
}
