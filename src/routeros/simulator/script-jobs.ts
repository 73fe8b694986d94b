/**
 * The background scripts of one router (`:execute`): each is an item of `/system script job` while it runs,
 * `/system script job remove` stops it, and a reboot stops them all. A job that fails is logged with topics
 * `script,error`, as RouterOS logs a failing script nobody waits for.
 */
import { setImmediate } from "node:timers/promises";
import { RouterOsError } from "../errors.js";
import type { BackgroundJob } from "../language/host.js";
import { MAX_BACKGROUND_JOBS } from "../limits.js";
import { formatId } from "./convert.js";
import type { Table } from "./table.js";

/** The table `/system script job` shows; never saved in a snapshot or a backup. */
export const JOB_TABLE = "system-script-job";

interface JobHost {
  table(key: string): Table;
  now(): Date;
  log(topics: readonly string[], message: string): void;
  writeFile(name: string, text: string): void;
}

const formatTime = (at: Date) => at.toISOString().slice(0, 19).replace("T", " ");

/** `file=x` of `:execute` writes `x.txt`. */
const outputFile = (name: string) => (name.endsWith(".txt") ? name : `${name}.txt`);

export class ScriptJobs {
  private readonly running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  private readonly signals = new WeakSet<AbortSignal>();

  constructor(private readonly router: JobHost) {}

  start(job: BackgroundJob): string {
    if (this.running.size >= MAX_BACKGROUND_JOBS)
      throw new RouterOsError(
        `failure: ${MAX_BACKGROUND_JOBS} scripts already running in the background, the limit of this router`,
      );
    const started = formatTime(this.router.now());
    const item = this.router.table(JOB_TABLE).insert({ owner: "admin", started, type: "command" });
    const controller = new AbortController();
    this.signals.add(controller.signal);
    const output: string[] | undefined = job.file === undefined ? undefined : [];
    const run = async () => {
      // The caller gets the id before the job's first statement, as a job started in the background.
      await setImmediate();
      await job.run(controller.signal, (line) => output?.push(line));
    };
    const done = run()
      .catch((error: unknown) => {
        // Stopped by `remove` or a reboot: it ends quietly.
        if (controller.signal.aborted) return;
        this.router.log(["script", "error"], error instanceof Error ? error.message : String(error));
      })
      .finally(() => {
        this.running.delete(item.id);
        this.router.table(JOB_TABLE).remove(item.id);
        if (output && job.file !== undefined) this.router.writeFile(outputFile(job.file), output.join("\n"));
      });
    this.running.set(item.id, { controller, done });
    return formatId(item.id);
  }

  /**
   * Whether `signal` is a job's: the `:delay` of a job must not keep the process alive, as nobody waits for
   * it (a service shutting down does not wait for a `:delay 1h` in the background).
   */
  isJob(signal: AbortSignal | undefined): boolean {
    return signal !== undefined && this.signals.has(signal);
  }

  /** Stops the job with that id (its item goes at once); a job that ended already is left alone. */
  stop(id: number): void {
    this.running.get(id)?.controller.abort(new RouterOsError("interrupted"));
    this.router.table(JOB_TABLE).remove(id);
  }

  stopAll(): void {
    for (const id of [...this.running.keys()]) this.stop(id);
  }

  /** Resolves when no job runs any more, including jobs that jobs started. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((job) => job.done));
  }
}
