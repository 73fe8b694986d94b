import { randomUUID } from "node:crypto";
import { formatDuration } from "../../contract/duration.js";
import { routerForRun } from "../auth/directory.js";
import type { Database } from "../database/database.js";
import {
  deadClaimants,
  forgetExpired,
  heartbeat,
  registerInstance,
  routersWithQueuedJobs,
  unregisterInstance,
} from "../instances.js";
import { claimNextJob, recoverJobs, releaseClaims } from "../jobs/lifecycle.js";
import type { JobRow } from "../jobs/rows.js";
import type { RouterCycle } from "./router-cycle.js";

export interface SchedulerOptions {
  readonly tickMs: number;
  readonly concurrency: number;
  /** PGlite: this is the only process on the database, so every other instance's claims are dead. */
  readonly exclusive: boolean;
  /**
   * Called after a state change commits, so notifications go out without waiting for a poll: with the job,
   * or with none after recovery changed several.
   */
  readonly onChange?: (job?: JobRow) => void;
  readonly log?: (message: string, fields?: object) => void;
  /** On close, running scripts may finish for this long; then they are aborted and their jobs fail. */
  readonly shutdownGraceMs: number;
  /** A job's backup and script together may run this long; then the script is stopped and the job fails. */
  readonly jobTimeoutMs: number;
}

const HEARTBEAT_MS = 5000;

const HOUSEKEEPING_MS = 60_000;

/** A router queue being worked: its pass, and the team whose slot it takes. */
interface ActiveQueue {
  run: Promise<void>;
  teamId: string | undefined;
}

/**
 * The queue pump: every tick for every router with queued jobs, at once for an express job, it claims the
 * router's next job and hands it to the router cycle. One job at a time per router, in seq_id order (see
 * `claimNextJob`). Lifecycle: pending -> loaded (claimed: the script is handed to the router) -> running
 * (backup, then script) -> completed | failed (`RouterCycle.runJob`).
 */
export class Scheduler {
  readonly instanceId = randomUUID();
  /** Routers with work to look at, and their team where known (fairness between teams). */
  private readonly wanted = new Map<string, string | undefined>();
  private readonly active = new Map<string, ActiveQueue>();
  private readonly passes = new Map<string, number>();
  /**
   * Jobs this instance claimed whose start failed, with their router: the claim holds the router's queue until it
   * is given back (`giveBackClaims`), which a full disk refuses too, so it is tried again on every tick.
   */
  private readonly stranded = new Map<string, string>();
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
  kick(routerId: string, teamId?: string): void {
    this.wanted.set(routerId, teamId ?? this.wanted.get(routerId));
    this.pump();
  }

  async tick(): Promise<void> {
    if (this.stopped) return;
    // Refused while the disk is still full: the queues of other routers move on meanwhile.
    await this.giveBackClaims().catch((error) => {
      if (!this.stopped) this.options.log?.("scheduler: giving back a claim failed", { err: error });
    });
    try {
      if (!this.options.exclusive) await this.recover(this.now());
      for (const { routerId, teamId } of await routersWithQueuedJobs(this.db))
        this.wanted.set(routerId, teamId);
      this.pump();
    } catch (error) {
      if (!this.stopped) this.options.log?.("scheduler: tick failed", { err: error });
    }
  }

  /** Gives back the claims of jobs whose start failed, so their routers' queues move on; throws if refused. */
  private async giveBackClaims(): Promise<void> {
    if (this.stranded.size === 0) return;
    const jobIds = [...this.stranded.keys()];
    for (const jobId of await releaseClaims(this.db, jobIds, this.instanceId)) {
      this.options.log?.("scheduler: a job whose start failed is queued again", {
        routerId: this.stranded.get(jobId),
        jobId,
      });
    }
    // Those not given back started after all, or are no longer this instance's (deleted, recovered).
    for (const jobId of jobIds) this.stranded.delete(jobId);
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

  /**
   * Starts router queues while slots are free, fairly between teams (max-min): each free slot goes to the
   * waiting team that holds fewest, and no team takes every slot: a quarter of them (at least one) is kept for
   * the other teams, so one team's long jobs on many routers cannot hold another team's express job. Slots
   * taken while others were idle are given back one job at a time (`givesWay`): a team that comes to a full
   * scheduler waits for one job to end, whichever team's it was, however many teams keep it full.
   */
  private pump(): void {
    if (this.stopped) return;
    const teamCap = Math.max(1, this.options.concurrency - Math.ceil(this.options.concurrency / 4));
    const held = this.heldByTeam();
    const waiting = new Map<string | undefined, string[]>();
    for (const [routerId, teamId] of this.wanted) {
      if (this.active.has(routerId)) continue;
      const routers = waiting.get(teamId);
      if (routers) routers.push(routerId);
      else waiting.set(teamId, [routerId]);
    }
    while (this.active.size < this.options.concurrency) {
      let chosen: { teamId: string | undefined; routers: string[]; holds: number } | undefined;
      for (const [teamId, routers] of waiting) {
        const holds = held.get(teamId) ?? 0;
        if (routers.length > 0 && holds < teamCap && (!chosen || holds < chosen.holds))
          chosen = { teamId, routers, holds };
      }
      const routerId = chosen?.routers.shift();
      if (!chosen || routerId === undefined) return;
      held.set(chosen.teamId, chosen.holds + 1);
      this.startQueue(routerId, chosen.teamId);
    }
  }

  private startQueue(routerId: string, teamId: string | undefined): void {
    this.wanted.delete(routerId);
    const active: ActiveQueue = { run: Promise.resolve(), teamId };
    this.active.set(routerId, active);
    active.run = this.drain(routerId, active)
      .catch((error) => this.options.log?.("scheduler: router queue failed", { routerId, err: error }))
      .finally(() => {
        this.active.delete(routerId);
        this.passes.set(routerId, this.queuePasses(routerId) + 1);
        this.pump();
      });
  }

  /**
   * Whether a router whose job just ended gives its slot to another team: the scheduler is full and a team
   * waits that holds none, or at least two fewer than this router's team (one fewer would only swap who
   * waits, except for a team that holds none: with more teams than slots, they take turns). The router goes
   * back to the end of the line and runs its next job when a slot is its team's turn.
   */
  private givesWay(teamId: string | undefined): boolean {
    if (this.active.size < this.options.concurrency) return false;
    const held = this.heldByTeam();
    const mine = held.get(teamId) ?? 0;
    for (const [routerId, waitingTeam] of this.wanted) {
      if (waitingTeam === teamId || this.active.has(routerId)) continue;
      const theirs = held.get(waitingTeam) ?? 0;
      if (theirs === 0 || theirs < mine - 1) return true;
    }
    return false;
  }

  private heldByTeam(): Map<string | undefined, number> {
    const held = new Map<string | undefined, number>();
    for (const { teamId } of this.active.values()) held.set(teamId, (held.get(teamId) ?? 0) + 1);
    return held;
  }

  /**
   * How often this instance has worked a router's queue until it stopped (empty, offline, unreachable, or
   * closing). A router's passes never overlap, so two more passes than now means one that started after now:
   * what a test waits for to know the scheduler has looked at a router, instead of sleeping.
   */
  queuePasses(routerId: string): number {
    return this.passes.get(routerId) ?? 0;
  }

  /**
   * Runs the router's jobs one after the other until its queue is empty, it is busy or offline, or its slot is
   * another team's turn (`givesWay`).
   */
  private async drain(routerId: string, active: ActiveQueue): Promise<void> {
    while (!this.stopped) {
      const router = await routerForRun(this.db, routerId);
      if (!router?.online) return;
      // An express kick from the admin API does not say whose router it is: the row does.
      active.teamId = router.team_id;
      // Loaded before the claim: the back end knows whether the router is reachable (a reboot in progress).
      await this.routers.load(router);
      if (!this.routers.isOnline(routerId)) return;
      const claimed = await claimNextJob(this.db, routerId, this.instanceId, this.now());
      if (!claimed) return;
      this.options.onChange?.(claimed.job);
      // Closing: the claim goes back to the queue by recovery (next start, or another instance).
      if (this.stopped) return;
      const limit = AbortSignal.timeout(this.options.jobTimeoutMs);
      let result: Awaited<ReturnType<RouterCycle["runJob"]>>;
      try {
        result = await this.routers.runJob(claimed, {
          instanceId: this.instanceId,
          signal: AbortSignal.any([this.shutdown.signal, limit]),
          closing: this.shutdown.signal,
          abortMessage: () =>
            this.shutdown.signal.aborted
              ? shutdownError(this.options.shutdownGraceMs)
              : jobTimeLimitError(this.options.jobTimeoutMs),
          ...(this.options.log ? { log: this.options.log } : {}),
        });
      } catch (error) {
        // The store refused the start (a full disk) or the router's state could not be read: the claim would
        // hold the queue until a restart. Given back now if the store takes it, else on a later tick.
        this.stranded.set(claimed.job.id, routerId);
        await this.giveBackClaims().catch(() => {});
        throw error;
      }
      // Deleted since the claim, or recovered by another instance: not ours to run any more.
      if (result === "not-started") continue;
      this.options.onChange?.(claimed.job);
      if (this.givesWay(active.teamId)) {
        this.wanted.delete(routerId);
        this.wanted.set(routerId, active.teamId);
        return;
      }
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    const finished = Promise.allSettled([...this.active.values()].map((active) => active.run));
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

/** The error of a job whose script ran past the job time limit. */
export function jobTimeLimitError(limitMs: number): string {
  return `the script ran longer than the job time limit of ${formatDuration(limitMs)} and was stopped`;
}

/** The error of a job whose script was still running when the shutdown grace period ended. */
export function shutdownError(graceMs: number): string {
  return `interrupted by service shutdown: the script was still running after the ${formatDuration(graceMs)} shutdown grace period`;
}
