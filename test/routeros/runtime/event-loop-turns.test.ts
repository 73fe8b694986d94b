import { describe, expect, it } from "vitest";
import { runScript } from "../../../src/routeros/index.js";
import { nextTurn } from "../../../src/routeros/runtime/event-loop-turns.js";
import { RecordingHost } from "../recording-host.js";

/** Counts iterations of the event loop: it re-arms itself in every check phase until stopped. */
function loopIterations() {
  let count = 0;
  let running = true;
  const tick = () => {
    count += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    now: () => count,
    stop: () => {
      running = false;
    },
  };
}

describe("turns of the event loop for paused scripts", () => {
  it("resumes one paused script per iteration, in the order they paused, so the loop polls between turns", async () => {
    const loop = loopIterations();
    const resumed: Array<{ who: number; iteration: number }> = [];
    await Promise.all(
      [0, 1, 2, 3].map(async (who) => {
        await nextTurn();
        resumed.push({ who, iteration: loop.now() });
      }),
    );
    loop.stop();
    expect(resumed.map((r) => r.who)).toEqual([0, 1, 2, 3]);
    const iterations = resumed.map((r) => r.iteration);
    expect(new Set(iterations).size).toBe(4);
  });

  it("two runaway scripts take turns with the loop: between two loop iterations only one of them runs", async () => {
    // Before, both paused scripts resumed in the same check phase, back to back, and a request waited for both.
    const host = new RecordingHost();
    const controller = new AbortController();
    let ranSinceIteration = new Set<number>();
    let worst = 0;
    let observing = false;
    const scripts = [0, 1].map((who) =>
      runScript(':while (true) do={ :put "x" }', host, {
        signal: controller.signal,
        maxStatements: 1e9,
        onOutput: () => {
          ranSinceIteration.add(who);
          // Both scripts run their first turn at once, when started, before the loop turns at all.
          if (observing) worst = Math.max(worst, ranSinceIteration.size);
        },
      }).catch(() => undefined),
    );
    await new Promise<void>((resolve) => {
      let iterations = 0;
      const tick = () => {
        ranSinceIteration = new Set();
        observing = true;
        if (++iterations < 40) setImmediate(tick);
        else resolve();
      };
      setImmediate(tick);
    });
    controller.abort();
    await Promise.all(scripts);
    expect(worst).toBe(1);
  });
});
