/**
 * PGlite runs one statement at a time, in this process, in the order asked. So a synchronous call to one router
 * queued behind every job-list read in flight for another: with eight lookups of a 10,000-job router back to
 * back, a call's p99 was 7.2x idle (issue 20, bench/job-list-isolation.bench.ts). Two lanes order the work
 * instead: whatever answers a caller now (the foreground) goes before reads that may be long (job lists, the
 * portal's log pages: the background). One piece of work runs at a time, as in PGlite, so foreground work waits
 * for at most the one piece already running. A background piece passed over FAIRNESS times in a row goes
 * next, so a steady foreground cannot starve the lists.
 */
export type Lane = "foreground" | "background";

const FAIRNESS = 16;

export class PriorityLanes {
  private running = false;
  private passedOver = 0;
  private readonly waiting: Record<Lane, (() => void)[]> = { foreground: [], background: [] };

  async run<T>(lane: Lane, work: () => Promise<T>): Promise<T> {
    if (this.running) await new Promise<void>((start) => this.waiting[lane].push(start));
    else this.running = true;
    try {
      return await work();
    } finally {
      this.startNext();
    }
  }

  private startNext(): void {
    const { foreground, background } = this.waiting;
    const backgroundsTurn = background.length > 0 && (foreground.length === 0 || this.passedOver >= FAIRNESS);
    const next = backgroundsTurn ? background.shift() : foreground.shift();
    if (backgroundsTurn || background.length === 0) this.passedOver = 0;
    else this.passedOver++;
    if (next) next();
    else this.running = false;
  }
}
