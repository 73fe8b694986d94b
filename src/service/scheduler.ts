import { randomUUID } from "node:crypto";
import { formatDuration } from "../contract/duration.js";
import type { Database } from "../store/database.js";
import type { RouterCycle } from "./router-cycle.js";
import { routerForRun } from "./store/directory.js";
import {
  deadClaimants,
  forgetExpired,
  heartbeat,
  registerInstance,
  routersWithQueuedJobs,
  unregisterInstance,
} from "./store/instances.js";
import { claimNextJob, recoverJobs } from "./store/lifecycle.js";

export interface SchedulerOptions {
  readonly tickMs: number;
  readonly concurrency: number;
  /** PGlite: this is the only process on the database, so every other instance's claims are dead. */
  readonly exclusive: boolean;
  /** Called after a state change commits, so notifications go out without waiting for a poll. */
  readonly onChange?: () => void;
  readonly log?: (message: string, fields?: object) => void;
  /** On close, running scripts may finish for this long; then they are aborted and their jobs fail. */
  readonly shutdownGraceMs: number;
}

const HEARTBEAT_MS = 5000;
const HOUSEKEEPING_MS = 60_000;

/**
 * The queue pump: every tick for every router with queued jobs, at once for an express job, it claims the
 * router's next job and hands it to the router cycle. One job at a time per router, in seq_id order (see
 * `claimNextJob`). Lifecycle: pending -> loaded (claimed: the script is handed to the router) -> running
 * (backup, then script) -> completed | failed (`RouterCycle.runJob`).
 */
export class Scheduler {
  readonly instanceId = randomUUID();
  private readonly wanted = new Set<string>();
  private readonly active = new Map<string, Promise<void>>();
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private readonly shutdown = new AbortController();

  constructor(
    private readonly db: Database,
    private readonly routers: RouterCycle,
    private readonly options: SchedulerOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async start(): Promise<void> {
    const now = this.now();
    await registerInstance(this.db, this.instanceId, now);
    await this.recover(now);
    this.timers.push(setInterval(() => void this.tick(), this.options.tickMs).unref());
    this.timers.push(setInterval(() => void this.heartbeat(), HEARTBEAT_MS).unref());
    this.timers.push(setInterval(() => void this.housekeeping(), HOUSEKEEPING_MS).unref());
  }

  /** Express execution: run this router's queue now. */
  kick(routerId: string): void {
    this.wanted.add(routerId);
    this.pump();
  }

  async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      if (!this.options.exclusive) await this.recover(this.now());
      for (const routerId of await routersWithQueuedJobs(this.db)) this.wanted.add(routerId);
      this.pump();
    } catch (error) {
      if (!this.stopped) this.options.log?.("scheduler: tick failed", { err: error });
    }
  }

  private async heartbeat(): Promise<void> {
    await heartbeat(this.db, this.instanceId, this.now()).catch(() => {});
  }

  /** Forgets what no longer matters: expired idempotency keys, old outbox rows, dead instances. */
  async housekeeping(now = this.now()): Promise<void> {
    try {
      await forgetExpired(this.db, now);
    } catch (error) {
      if (!this.stopped) this.options.log?.("scheduler: housekeeping failed", { err: error });
    }
  }

  private async recover(now: Date): Promise<void> {
    const dead = await deadClaimants(this.db, this.instanceId, { exclusive: this.options.exclusive, now });
    const recovered = await recoverJobs(this.db, dead, now);
    if (recovered > 0) {
      this.options.log?.("scheduler: recovered jobs of a stopped instance", { jobs: recovered });
      this.options.onChange?.();
    }
  }

  private pump(): void {
    for (const routerId of this.wanted) {
      if (this.stopped || this.active.size >= this.options.concurrency) return;
      if (this.active.has(routerId)) continue;
      this.wanted.delete(routerId);
      const run = this.drain(routerId)
        .catch((error) => this.options.log?.("scheduler: router queue failed", { routerId, err: error }))
        .finally(() => {
          this.active.delete(routerId);
          this.pump();
        });
      this.active.set(routerId, run);
    }
  }

  /** Runs the router's jobs one after the other until its queue is empty, it is busy or offline. */
  private async drain(routerId: string): Promise<void> {
    while (!this.stopped) {
      const router = await routerForRun(this.db, routerId);
      if (!router?.online) return;
      // Loaded before the claim: the back end knows whether the router is reachable (a reboot in progress).
      await this.routers.load(router);
      if (!this.routers.isOnline(routerId)) return;
      const claimed = await claimNextJob(this.db, routerId, this.instanceId, this.now());
      if (!claimed) return;
      this.options.onChange?.();
      // Closing: the claim goes back to the queue by recovery (next start, or another instance).
      if (this.stopped) return;
      const result = await this.routers.runJob(claimed, {
        instanceId: this.instanceId,
        signal: this.shutdown.signal,
        abortMessage: () => shutdownError(this.options.shutdownGraceMs),
        ...(this.options.log ? { log: this.options.log } : {}),
      });
      // Deleted since the claim, or recovered by another instance: not ours to run any more.
      if (result === "not-started") continue;
      this.options.onChange?.();
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    const finished = Promise.allSettled([...this.active.values()]);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise((resolve) => {
      timer = setTimeout(resolve, this.options.shutdownGraceMs);
    });
    await Promise.race([finished, grace]);
    clearTimeout(timer);
    this.shutdown.abort();
    await finished;
    await unregisterInstance(this.db, this.instanceId).catch(() => {});
  }
}

/** The error of a job whose script was still running when the shutdown grace period ended. */
export function shutdownError(graceMs: number): string {
  return `interrupted by service shutdown: the script was still running after the ${formatDuration(graceMs)} shutdown grace period`;
}
