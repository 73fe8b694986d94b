/**
 * Work that takes turns per key: one holder at a time, the others waiting in the order they came. A key with
 * nobody holding or waiting costs nothing.
 *
 * The service's job list of one router takes turns so that a router with a long history, listed by many
 * clients at once, holds at most one list's share of the event loop (a response's serialization and its
 * writes) and of the embedded database's thread (its queries). Calls to other routers then wait behind one
 * list request, not behind every list request in flight (bench/job-list-isolation.bench.ts).
 */
export class Turns {
  /** Per key, the promise that settles when its last holder or waiter has ended its turn. */
  private readonly tails = new Map<string, Promise<void>>();

  /** Resolves when `key` is this caller's; the returned function ends the turn (again: does nothing). */
  async take(key: string): Promise<() => void> {
    const previous = this.tails.get(key);
    let end!: () => void;
    const mine = new Promise<void>((resolve) => {
      end = resolve;
    });
    const tail = previous ? previous.then(() => mine) : mine;
    this.tails.set(key, tail);
    if (previous) await previous;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      end();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }

  /** Keys someone holds or waits for (for tests: a map left behind would grow without bound). */
  get size(): number {
    return this.tails.size;
  }
}
