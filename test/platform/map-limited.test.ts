import { describe, expect, it } from "vitest";
import { mapLimited } from "../../src/platform/map-limited.js";

describe("mapLimited", () => {
  it("keeps the items' order and never runs more than the limit at once", async () => {
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const done = mapLimited([1, 2, 3, 4, 5], 2, async (item) => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((open) => gates.push(open));
      running--;
      return item * 10;
    });
    // Open the gates one by one, last started first, so results finish out of order.
    while (gates.length > 0 || running > 0) {
      await Promise.resolve();
      gates.pop()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await done).toEqual([10, 20, 30, 40, 50]);
    expect(most).toBe(2);
  });

  it("answers an empty list at once and passes a failure on", async () => {
    expect(await mapLimited([], 4, async () => 1)).toEqual([]);
    await expect(
      mapLimited([1, 2], 4, async (item) => {
        if (item === 2) throw new Error("router 2 failed");
        return item;
      }),
    ).rejects.toThrow("router 2 failed");
  });
});
