import { EventEmitter } from "node:events";
import type { ReceivedJob } from "./job-view.js";

/**
 * Wakes long-poll waiters when a notification for the job they watch is stored; a job is watched by its
 * idempotency key or its job id (both UUIDs, one namespace), and a stored notification wakes both names. A waiter subscribes
 * BEFORE it reads the store, and a wake that lands between the read and the wait is kept, so none is lost.
 * A wake from this process carries the job's state as committed, which spares the waiter a read on the hot
 * path; a wake from another instance (PostgreSQL NOTIFY) carries only the name.
 */
export class Wakeups {
  private readonly emitter = new EventEmitter();
  private closed = false;

  constructor() {
    // One listener per waiting request; the count is bounded by connections, not a leak.
    this.emitter.setMaxListeners(0);
  }

  notify(name: string, job?: ReceivedJob): void {
    this.emitter.emit(name, job);
  }

  /** Releases every waiter at once, so a shutdown does not hang on 60 s long polls. */
  close(): void {
    this.closed = true;
    this.emitter.emit(CLOSE);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  watch(name: string): Watch {
    return new Watch(this.emitter, name, () => this.closed);
  }
}

const CLOSE = Symbol("close");

export class Watch {
  private pending = false;
  private delivered: ReceivedJob | undefined;
  private release: (() => void) | undefined;
  private readonly onWake = (job?: ReceivedJob) => {
    this.pending = true;
    this.delivered = job;
    this.release?.();
  };

  constructor(
    private readonly emitter: EventEmitter,
    private readonly key: string,
    private readonly isClosed: () => boolean,
  ) {
    emitter.on(key, this.onWake);
    emitter.on(CLOSE, this.onWake);
  }

  /**
   * Resolves on a wake (possibly one that came before the call), after `timeoutMs`, or on abort; with the job
   * state the wake carried, if any.
   */
  async next(timeoutMs: number, signal?: AbortSignal): Promise<ReceivedJob | undefined> {
    if (!this.pending && !this.isClosed() && !signal?.aborted && timeoutMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, timeoutMs);
        signal?.addEventListener("abort", done, { once: true });
        this.release = done;
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          resolve();
        }
      });
      this.release = undefined;
    }
    const job = this.delivered;
    this.pending = false;
    this.delivered = undefined;
    return job;
  }

  close(): void {
    this.emitter.off(this.key, this.onWake);
    this.emitter.off(CLOSE, this.onWake);
  }
}
