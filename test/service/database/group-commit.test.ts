import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../../src/service/database/group-commit.js";

/**
 * A write that completes on a later turn of the event loop, as a database write does. What is submitted while
 * it is in flight is queued by then whatever the machine's speed: the batches depend on order, not on time.
 */
const writeTakesATurn = () => new Promise((resolve) => setImmediate(resolve));

describe("GroupCommit", () => {
  it("writes items submitted during a write together in the next batch, in order, within maxBatch", async () => {
    const batches: number[][] = [];
    const writer = new GroupCommit<number, string>(async (items) => {
      batches.push([...items]);
      await writeTakesATurn();
      return items.map((item) => `ok ${item}`);
    }, 3);
    const results = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((item) => writer.submit(item)));
    expect(results).toEqual([1, 2, 3, 4, 5, 6, 7].map((item) => `ok ${item}`));
    expect(batches).toEqual([[1], [2, 3, 4], [5, 6, 7]]);
  });

  it("writes a failed batch again item by item, so only the item that fails on its own is rejected", async () => {
    const batches: number[][] = [];
    const writer = new GroupCommit<number, number>(async (items) => {
      batches.push([...items]);
      await writeTakesATurn();
      // All or nothing, as a transaction: one bad item fails the whole batch.
      if (items.includes(3)) throw new Error(`item 3 refused (batch of ${items.length})`);
      return items.map((item) => item * 10);
    });
    const first = writer.submit(1);
    const batch = [2, 3, 4].map((item) => writer.submit(item));
    await expect(first).resolves.toBe(10);
    await expect(batch[0]).resolves.toBe(20);
    await expect(batch[1]).rejects.toThrow("item 3 refused (batch of 1)");
    await expect(batch[2]).resolves.toBe(40);
    expect(batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
    // The writer carries on in batches afterwards.
    await expect(Promise.all([writer.submit(5), writer.submit(6)])).resolves.toEqual([50, 60]);
  });

  it("rejects each item with its own error when every write fails (the database is down)", async () => {
    let calls = 0;
    const writer = new GroupCommit<number, number>(async (items) => {
      calls++;
      await writeTakesATurn();
      throw new Error(`database down (${items.join(",")})`);
    });
    const outcomes = await Promise.allSettled([1, 2, 3].map((item) => writer.submit(item)));
    expect(outcomes.map((outcome) => outcome.status === "rejected" && String(outcome.reason))).toEqual([
      "Error: database down (1)",
      "Error: database down (2)",
      "Error: database down (3)",
    ]);
    // [1], then [2, 3] as a batch, then 2 and 3 alone.
    expect(calls).toBe(4);
  });
});
