import { describe, expect, it } from "vitest";
import { Wakeups } from "../../src/receiver/wakeups.js";

describe("Wakeups", () => {
  it("keeps a wake that arrives before the waiter waits (between its read and its wait)", async () => {
    const wakeups = new Wakeups();
    const watch = wakeups.watch("key-1");
    wakeups.notify("key-1");
    const started = performance.now();
    await watch.next(5000);
    expect(performance.now() - started).toBeLessThan(50);
    watch.close();
  });

  it("wakes only the watchers of that key, and times out otherwise", async () => {
    const wakeups = new Wakeups();
    const other = wakeups.watch("key-2");
    wakeups.notify("key-1");
    const started = performance.now();
    await other.next(100);
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    other.close();
  });

  it("releases every waiter on close, and later waits return at once", async () => {
    const wakeups = new Wakeups();
    const watches = [wakeups.watch("a"), wakeups.watch("b")];
    const waiting = Promise.all(watches.map((watch) => watch.next(60_000)));
    wakeups.close();
    await waiting;
    const started = performance.now();
    await watches[0]?.next(60_000);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it("stops waiting when the signal aborts (the client hung up)", async () => {
    const wakeups = new Wakeups();
    const watch = wakeups.watch("a");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const started = performance.now();
    await watch.next(60_000, controller.signal);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
