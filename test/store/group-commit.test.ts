import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/store/group-commit.js";

describe("GroupCommit", () => {
  it("writes items submitted during a write together in the next batch, in order, within maxBatch", async () => {
    const batches: number[][] = [];
    const writer = new GroupCommit<number, string>(async (items) => {
      batches.push([...items]);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return items.map((item) => `ok ${item}`);
    }, 3);
    const results = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((item) => writer.submit(item)));
    expect(results).toEqual([1, 2, 3, 4, 5, 6, 7].map((item) => `ok ${item}`));
    expect(batches).toEqual([[1], [2, 3, 4], [5, 6, 7]]);
  });

  it("rejects every item of a failed batch, and carries on with the next one", async () => {
    let calls = 0;
    const writer = new GroupCommit<number, number>(async (items) => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (items.includes(2)) throw new Error("database down");
      return items;
    });
    const first = writer.submit(1);
    const failing = [writer.submit(2), writer.submit(3)];
    await expect(first).resolves.toBe(1);
    for (const outcome of failing) await expect(outcome).rejects.toThrow("database down");
    await expect(writer.submit(4)).resolves.toBe(4);
    expect(calls).toBe(3);
  });
});
