import { describe, expect, it } from "vitest";
import { type Lane, PriorityLanes } from "../../src/store/priority-lanes.js";

/** Work that starts when the lanes say so and ends when the test says so, recording both. */
function gatedWork(lanes: PriorityLanes, lane: Lane, name: string, log: string[]) {
  let end: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  let started: () => void = () => {};
  const hasStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const done = lanes.run(lane, async () => {
    log.push(name);
    started();
    await ended;
    return name;
  });
  return { end, hasStarted, done };
}

describe("PriorityLanes", () => {
  it("starts waiting foreground work before background work that asked earlier, one at a time", async () => {
    const lanes = new PriorityLanes();
    const log: string[] = [];
    const first = gatedWork(lanes, "background", "running list", log);
    await first.hasStarted;
    const list1 = gatedWork(lanes, "background", "list 1", log);
    const list2 = gatedWork(lanes, "background", "list 2", log);
    const call1 = gatedWork(lanes, "foreground", "call 1", log);
    const call2 = gatedWork(lanes, "foreground", "call 2", log);
    // Nothing else starts while one runs.
    expect(log).toEqual(["running list"]);
    first.end();
    for (const [index, work] of [call1, call2, list1, list2].entries()) {
      await work.hasStarted;
      // Each runs alone: nothing after it has started while it runs.
      expect(log).toHaveLength(index + 2);
      work.end();
      await work.done;
    }
    expect(log).toEqual(["running list", "call 1", "call 2", "list 1", "list 2"]);
  });

  it("lets a background piece through after 16 foreground pieces passed it over", async () => {
    const lanes = new PriorityLanes();
    const log: string[] = [];
    const first = gatedWork(lanes, "foreground", "first", log);
    await first.hasStarted;
    const list = lanes.run("background", async () => {
      log.push("list");
    });
    const calls = Array.from({ length: 20 }, (_, i) =>
      lanes.run("foreground", async () => {
        log.push(`call ${i + 1}`);
      }),
    );
    first.end();
    await Promise.all([list, ...calls]);
    expect(log.indexOf("list")).toBe(17); // after "first" and 16 calls
    expect(log.slice(18)).toEqual(["call 17", "call 18", "call 19", "call 20"]);
  });

  it("passes the turn on when work fails, and the failure reaches its caller", async () => {
    const lanes = new PriorityLanes();
    const failing = lanes.run("foreground", async () => {
      throw new Error("statement failed");
    });
    const next = lanes.run("background", async () => "ran");
    await expect(failing).rejects.toThrow("statement failed");
    expect(await next).toBe("ran");
  });
});
