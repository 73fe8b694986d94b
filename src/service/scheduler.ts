import { randomUUID } from "node:crypto";
import { formatDuration } from "../contract/duration.js";
import { IDEMPOTENCY_TTL_MS } from "../contract/limits.js";
import type { Database } from "../store/database.js";
import type { RouterRegistry } from "./router-registry.js";
import type { ScriptOutcome } from "./routers/backend.js";
import { type ClaimedJob, claimNextJob, finishJob, markStarted, recoverJobs } from "./store/lifecycle.js";

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
/** Delivered or abandoned notifications are kept this long for inspection, then deleted. */
const OUTBOX_RETENTION_MS = 7 * 24 * 3_600_000;
/** An instance silent for this long is dead: its claimed jobs are recovered by the others. */
const STALE_INSTANCE_MS = 30_000;

/**
 * Runs queued jobs: every tick for every router with queued jobs, at once for an express job. One job at a time
 * per router, in seq_id order (see `claimNextJob`). Lifecycle: pending -> loaded (claimed: the script is
 * handed to the router) -> running (backup, then script) -> completed | failed.
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
    private readonly routers: RouterRegistry,
    private readonly options: SchedulerOptions,
  ) {}

  async start(): Promise<void> {
    const now = new Date();
    await this.db.query("INSERT INTO instances (id, started_at, heartbeat_at) VALUES ($1, $2, $2)", [
      this.instanceId,
      now,
    ]);
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
      if (!this.options.exclusive) await this.recover(new Date());
      const { rows } = await this.db.query<{ router_id: string }>(
        "SELECT DISTINCT router_id FROM jobs WHERE execution = 'queued'",
      );
      for (const row of rows) this.wanted.add(row.router_id);
      this.pump();
    } catch (error) {
      if (!this.stopped) this.options.log?.("scheduler: tick failed", { err: error });
    }
  }

  private async heartbeat(): Promise<void> {
    await this.db
      .query("UPDATE instances SET heartbeat_at = $2 WHERE id = $1", [this.instanceId, new Date()])
      .catch(() => {});
  }

  /** Forgets what no longer matters: expired idempotency keys, old outbox rows, dead instances. */
  async housekeeping(now = new Date()): Promise<void> {
    const ago = (ms: number) => new Date(now.getTime() - ms);
    try {
      await this.db.query("DELETE FROM idempotency_keys WHERE created_at < $1", [ago(IDEMPOTENCY_TTL_MS)]);
      await this.db.query("DELETE FROM outbox WHERE coalesce(delivered_at, abandoned_at) < $1", [
        ago(OUTBOX_RETENTION_MS),
      ]);
      await this.db.query("DELETE FROM instances WHERE heartbeat_at < $1", [ago(24 * 3_600_000)]);
    } catch (error) {
      if (!this.stopped) this.options.log?.("scheduler: housekeeping failed", { err: error });
    }
  }

  private async recover(now: Date): Promise<void> {
    const { rows } = await this.db.query<{ claimed_by: string }>(
      `SELECT DISTINCT claimed_by FROM jobs WHERE claimed_by IS NOT NULL AND claimed_by <> $1
         AND ($2 OR claimed_by NOT IN (SELECT id FROM instances WHERE heartbeat_at >= $3))`,
      [this.instanceId, this.options.exclusive, new Date(now.getTime() - STALE_INSTANCE_MS)],
    );
    const recovered = await recoverJobs(
      this.db,
      rows.map((row) => row.claimed_by),
      now,
    );
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
      const { rows } = await this.db.query<{
        id: string;
        name: string;
        online: boolean;
        state_version: number;
      }>("SELECT id, name, online, state_version FROM routers WHERE id = $1 AND removed_at IS NULL", [
        routerId,
      ]);
      const router = rows[0];
      if (!router) return;
      await this.routers.sync({ ...router, stateVersion: router.state_version });
      if (!this.routers.backend.isOnline(routerId)) return;
      const claimed = await claimNextJob(this.db, routerId, this.instanceId, new Date());
      if (!claimed) return;
      this.options.onChange?.();
      await this.routers.sync({ id: routerId, online: true, ...claimed.router });
      await this.execute(claimed);
      this.options.onChange?.();
    }
  }

  private async execute(claimed: ClaimedJob): Promise<void> {
    // Closing: the claim goes back to the queue by recovery (next start, or another instance).
    if (this.stopped) return;
    const job = await markStarted(this.db, claimed.job.id, this.instanceId, new Date());
    // Deleted since the claim, or recovered by another instance: not ours to run any more.
    if (!job) return;
    this.options.onChange?.();
    const backend = this.routers.backend;
    let outcome: ScriptOutcome;
    try {
      if (job.make_backup) {
        const name = await backend.backup(job.router_id, `routerjobs-job-${job.seq_id}`);
        await this.db.query("UPDATE jobs SET backup_name = $2 WHERE id = $1", [job.id, name]);
      }
      outcome = await backend.runScript(job.router_id, job.script, { signal: this.shutdown.signal });
    } catch (error) {
      // The back end throws only when it could not run the script at all (router gone mid-job, backup failed,
      // or the shutdown grace period ran out).
      const message = this.shutdown.signal.aborted
        ? shutdownError(this.options.shutdownGraceMs)
        : (error as Error).message || String(error);
      outcome = { ok: false, output: "", error: message };
    }
    const finish = (snapshot: unknown) =>
      finishJob(
        this.db,
        job,
        { ok: outcome.ok, ...(outcome.ok ? {} : { error: describeFailure(outcome) }), snapshot },
        new Date(),
      );
    let version: number | undefined;
    try {
      version = await finish(this.snapshot(job.router_id));
    } catch (error) {
      // The job must end even when the database refuses its router's state: a job left `started` would hold
      // the router's queue until a restart. The state then lives only in this instance's router.
      this.options.log?.("scheduler: router state not saved", { routerId: job.router_id, err: error });
      version = await finish(undefined);
    }
    if (version !== undefined) this.routers.saved(job.router_id, version);
  }

  /**
   * The router's configuration after a job. A router removed while its job ran is gone from the back end: its
   * job is already `deleted` (removal deletes open jobs), so it only has to end, with nothing to save.
   */
  private snapshot(routerId: string): unknown {
    try {
      return this.routers.backend.snapshot(routerId);
    } catch (error) {
      this.options.log?.("scheduler: router state not saved", { routerId, err: error });
      return undefined;
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
    await this.db.query("DELETE FROM instances WHERE id = $1", [this.instanceId]).catch(() => {});
  }
}

/** The error of a job whose script was still running when the shutdown grace period ended. */
export function shutdownError(graceMs: number): string {
  return `interrupted by service shutdown: the script was still running after the ${formatDuration(graceMs)} shutdown grace period`;
}

/** The router's error text and line, as the job's `error` carries it. */
export function describeFailure(outcome: Extract<ScriptOutcome, { ok: false }>): string {
  if (outcome.line === undefined || /\(line \d+/.test(outcome.error)) return outcome.error;
  return `${outcome.error} (line ${outcome.line})`;
}
