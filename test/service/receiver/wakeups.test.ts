import { describe, expect, it } from "vitest";
import type { ReceivedJob } from "../../../src/service/receiver/job-view.js";
import { Wakeups } from "../../../src/service/receiver/wakeups.js";
import { settlesWithoutWaiting } from "../../helpers/wait-for.js";

// Whether a wait returned without waiting is an ordering fact (settled before the next macrotask), not a
// duration: a loaded machine cannot turn it into a failure, and a wake that is lost turns it into one at once.
const job = { job_id: "job-1", status: "completed" } as ReceivedJob;

describe("Wakeups", () => {
  it("keeps a wake that arrives before the waiter waits (between its read and its wait)", async () => {
    const wakeups = new Wakeups();
    const watch = wakeups.watch("key-1");
    wakeups.notify("key-1", job);
    const woken = watch.next(60_000);
    expect(await settlesWithoutWaiting(woken)).toBe(true);
    expect(await woken).toBe(job);
    watch.close();
  });

  it("wakes only the watchers of that key, and times out otherwise", async () => {
    const wakeups = new Wakeups();
    const mine = wakeups.watch("key-1");
    const other = wakeups.watch("key-2");
    const waitingMine = mine.next(60_000);
    const waitingOther = other.next(50);
    wakeups.notify("key-1", job);
    expect(await waitingMine).toBe(job);
    // The other key's watcher is still waiting, and its timeout ends the wait without a job.
    expect(await settlesWithoutWaiting(waitingOther)).toBe(false);
    expect(await waitingOther).toBeUndefined();
    mine.close();
    other.close();
  });

  it("releases every waiter on close, and later waits return at once", async () => {
    const wakeups = new Wakeups();
    const watches = [wakeups.watch("a"), wakeups.watch("b")];
    const waiting = Promise.all(watches.map((watch) => watch.next(60_000)));
    expect(await settlesWithoutWaiting(waiting)).toBe(false);
    wakeups.close();
    expect(await settlesWithoutWaiting(waiting)).toBe(true);
    expect(await settlesWithoutWaiting(watches[0]?.next(60_000) as Promise<unknown>)).toBe(true);
  });

  it("stops waiting when the signal aborts (the client hung up)", async () => {
    const wakeups = new Wakeups();
    const watch = wakeups.watch("a");
    const controller = new AbortController();
    const waiting = watch.next(60_000, controller.signal);
    expect(await settlesWithoutWaiting(waiting)).toBe(false);
    controller.abort();
    expect(await settlesWithoutWaiting(waiting)).toBe(true);
    expect(await waiting).toBeUndefined();
  });
});
