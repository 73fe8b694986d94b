import { EventEmitter } from "node:events";
import type { Job } from "./jobs.js";

/** "submitted" and "executed" are stand-in events only; the others are the notified moments. */
export type JobEventKind =
  | "submitted"
  | "loaded"
  | "running"
  | "executed"
  | "completed"
  | "failed"
  | "deleted";
export interface JobEvent {
  kind: JobEventKind;
  job: Readonly<Job>;
}
export interface Run {
  jobId: string | null;
  description: string;
  script: string;
  at: number;
}
/** A backup a job took before its script: named `<epoch seconds>.rsc` as the documented examples are. */
export interface Backup {
  filename: string;
  content: string;
  at: number;
}
export interface LogLine {
  ".id": string;
  time: string;
  topics: string;
  message: string;
}

/** The text of the first `:error "<text>"` in a script: that is where a RouterOS script stops. */
export function scriptError(script: string): string | null {
  const match = /:error\s+"((?:[^"\\]|\\.)*)"/.exec(script);
  return match ? (match[1] ?? "").replace(/\\(.)/g, "$1") : null;
}

/**
 * The fake routers: one queue per site, one job at a time, in submission order. A scheduler run works
 * through the whole queue; express submissions start one at once, otherwise the periodic tick does.
 */
export class Devices extends EventEmitter<{ job: [JobEvent] }> {
  private readonly queues = new Map<string, Job[]>();
  private readonly busy = new Set<string>();
  private readonly held = new Map<string, { siteId: string; open: () => void }>();
  private readonly preReleased = new Set<string>();
  private readonly executed = new Map<string, Run[]>();
  private readonly logs = new Map<string, LogLine[]>();
  private readonly heldSites = new Set<string>();
  private readonly backups = new Map<string, Backup[]>();

  constructor(private holdJobs: boolean) {
    super();
    this.setMaxListeners(0); // every waitFor() in a test is one listener
  }

  emitJob(kind: JobEventKind, job: Job): void {
    this.emit("job", { kind, job: { ...job } });
  }

  enqueue(job: Job): void {
    const queue = this.queues.get(job.siteId) ?? [];
    queue.push(job);
    this.queues.set(job.siteId, queue);
    if (job.expressExecute) void this.drain(job.siteId);
  }

  tick(): void {
    for (const siteId of this.queues.keys()) void this.drain(siteId);
  }

  /** Releases every held job and holds no more: later jobs run to the end at once. */
  stopHolding(): void {
    this.holdJobs = false;
    this.heldSites.clear();
    this.release();
  }

  /** Holds the later jobs of one site as `holdJobs` does (applied, outcome held) until `releaseSite()`. */
  holdSite(siteId: string): void {
    this.heldSites.add(siteId);
  }

  /** Releases the held jobs of one site and holds its jobs no more (other sites stay as they are). */
  releaseSite(siteId: string): void {
    this.heldSites.delete(siteId);
    for (const [jobId, gate] of this.held) if (gate.siteId === siteId) this.release(jobId);
  }

  /** Lets a held job finish; without an id, every job held right now. An id not yet held is remembered. */
  release(jobId?: string): void {
    if (jobId === undefined) {
      for (const { open } of this.held.values()) open();
      this.held.clear();
      return;
    }
    const gate = this.held.get(jobId);
    if (gate) {
      this.held.delete(jobId);
      gate.open();
    } else this.preReleased.add(jobId);
  }

  /** Operator deletion: only a job that has not reached an outcome; a running one's outcome is dropped. */
  delete(job: Job): boolean {
    if (job.deletedAt !== null || job.failedAt !== null || job.completedAt !== null) return false;
    job.deletedAt = Date.now();
    this.emitJob("deleted", job);
    return true;
  }

  /**
   * The export before a job's script: what the site's runs so far applied. Two backups in one second would
   * share the documented name, so a later one takes the next free second.
   */
  private takeBackup(siteId: string, now: number): Backup {
    const taken = this.backups.get(siteId) ?? [];
    let seconds = Math.floor(now / 1000);
    while (taken.some((backup) => backup.filename === `${seconds}.rsc`)) seconds++;
    const scripts = this.runs(siteId).map((run) => run.script);
    const content = [`# ${new Date(now).toISOString()} by the stand-in`, ...scripts, ""].join("\n");
    const backup = { filename: `${seconds}.rsc`, content, at: now };
    taken.push(backup);
    this.backups.set(siteId, taken);
    return backup;
  }

  /** The site's backups, newest first. */
  backupsOf(siteId: string): Backup[] {
    return [...(this.backups.get(siteId) ?? [])].reverse();
  }

  runs(siteId: string): Run[] {
    return [...(this.executed.get(siteId) ?? [])];
  }

  log(siteId: string): LogLine[] {
    return [...(this.logs.get(siteId) ?? [])];
  }

  /** Applies a script on the device (a job or a synchronous /execute) and logs its error, if any. */
  apply(siteId: string, run: Run): string | null {
    const runs = this.executed.get(siteId) ?? [];
    runs.push(run);
    this.executed.set(siteId, runs);
    const error = scriptError(run.script);
    if (error !== null) {
      const lines = this.logs.get(siteId) ?? [];
      const time = new Date(run.at).toISOString().slice(0, 19).replace("T", " ");
      lines.push({
        ".id": `*${(lines.length + 1).toString(16).toUpperCase()}`,
        time,
        topics: "script,error",
        message: error,
      });
      this.logs.set(siteId, lines);
    }
    return error;
  }

  private async drain(siteId: string): Promise<void> {
    if (this.busy.has(siteId)) return;
    this.busy.add(siteId);
    try {
      const queue = this.queues.get(siteId) ?? [];
      for (let job = queue.shift(); job; job = queue.shift()) {
        if (job.deletedAt === null) await this.execute(job);
      }
    } finally {
      this.busy.delete(siteId);
    }
  }

  private async execute(job: Job): Promise<void> {
    // A job without acknowledgement was completed at submission; its device reports nothing back.
    const reports = job.needsAcknowledgement;
    if (reports) this.emitJob("loaded", job);
    const now = Date.now();
    if (job.backup) job.associatedBackup = `${job.siteId}/${this.takeBackup(job.siteId, now).filename}`;
    if (reports) {
      job.startedAt = now;
      this.emitJob("running", job);
    }
    const error = this.apply(job.siteId, {
      jobId: job.id,
      description: job.description ?? "",
      script: job.script,
      at: now,
    });
    this.emitJob("executed", job);
    if (this.holdJobs || this.heldSites.has(job.siteId)) await this.gate(job);
    if (!reports || job.deletedAt !== null) return;
    if (error === null) job.completedAt = Date.now();
    else job.failedAt = Date.now();
    this.emitJob(error === null ? "completed" : "failed", job);
  }

  private gate(job: Job): Promise<void> {
    if (this.preReleased.delete(job.id)) return Promise.resolve();
    return new Promise((open) => this.held.set(job.id, { siteId: job.siteId, open }));
  }
}
