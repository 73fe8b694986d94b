/**
 * A 429 storm: another machine shares the API key (this machine's budget cannot see its requests) and spends
 * the key's whole limit, ignoring Retry-After, until apply has been refused twice. Apply's own requests get
 * 429s (counted from the retries its client logs, as `--verbose` prints them), it waits as the service says,
 * and it finishes once the storm has passed, within its timeout.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../src/client/index.js";
import type { ApplyJob } from "../../src/contract/apply-job.js";
import { applyJob } from "../../src/deploy/apply/apply.js";
import { Journal } from "../../src/deploy/apply/journal.js";
import { declareJob } from "../helpers/declared-job.js";
import { waitFor } from "../helpers/wait-for.js";
import { ROUTER_A, startTestService, type TestService, TOKEN_A } from "../service/harness.js";

const LIMIT = { count: 10, windowMs: 1000 };

describe("a 429 storm from another machine sharing the key", () => {
  let service: TestService;
  let here: string;

  // The service's rate windows stand still while the storm lasts, so that the storm spends the key's window and
  // keeps it spent however slowly a loaded machine lets it send (at real time, two suites at once let the
  // window roll over between the storm's requests, and apply was never refused: scripts/flake.mjs). Real time
  // goes on once the storm is over.
  let stormWindowAt: number | undefined = Date.now();
  beforeAll(async () => {
    service = await startTestService({ rateLimit: LIMIT }, undefined, {
      rateLimitClock: () => stormWindowAt ?? Date.now(),
    });
    here = await mkdtemp(join(tmpdir(), "rj-storm-here-"));
  });
  afterAll(async () => {
    await service?.close();
    await rm(here, { recursive: true, force: true });
  });

  it("slows apply down without failing it", async () => {
    const options = { baseUrl: service.url, token: TOKEN_A, ca: service.service.ca, rateLimit: LIMIT };
    // What `routerjobs apply --verbose` prints: each retry, with the error that caused it and the wait.
    const ourWaits: number[] = [];
    const ours = new RouterJobsClient({
      ...options,
      budgetDir: here,
      logger: {
        debug: (message, fields) => {
          if (message.endsWith("after RJ_ERR_RATE_LIMITED")) ourWaits.push(Number(fields?.waitMs));
        },
      },
    });
    // The other machine spends the key as fast as it can and ignores Retry-After: the worst neighbour.
    // It storms until apply has been answered 429 twice (or has finished): the storm's length is set by what
    // it did to apply, not by a timer.
    let stormRequests = 0;
    let storm429s = 0;
    let storming = true;
    const storm = (async () => {
      while (storming && ourWaits.length < 2) {
        stormRequests++;
        if ((await service.call("GET", `/api/routers/${ROUTER_A}/jobs`)).status === 429) storm429s++;
      }
      stormWindowAt = undefined;
    })();
    const job: ApplyJob = declareJob(ROUTER_A, "faults/storm", {
      description: "during a storm",
      script: "/system identity set name=storm",
      makeBackup: true,
      express: true,
      waitFor: "poll",
      timeoutMs: 60_000,
    });
    try {
      // Apply starts once the storm has spent the key's window.
      await waitFor(() => storm429s > 0, { what: "the storm to spend the key's window" });
      const started = performance.now();
      const result = await applyJob(job, {
        client: ours,
        journal: new Journal(here),
        instanceId: "i",
        write: () => {},
      });
      const seconds = (performance.now() - started) / 1000;
      // THEN apply's own requests were answered 429 and waited the Retry-After (1 s), and apply still finished
      expect(result.outcome).toBe("completed");
      expect(storm429s).toBeGreaterThan(0);
      expect(ourWaits.length).toBeGreaterThan(0);
      expect(Math.min(...ourWaits)).toBeGreaterThanOrEqual(1000);
      const limited = [...service.service.app.rateLimitedRequests.values()].reduce((a, b) => a + b, 0);
      console.log(
        `429 storm: the other machine sent ${stormRequests} requests (${storm429s} answered 429); apply's own requests got ${ourWaits.length} 429s and waited ${(ourWaits.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s on Retry-After, and still completed in ${seconds.toFixed(1)} s; the service answered 429 ${limited} times in all`,
      );
    } finally {
      storming = false;
      await storm;
      await ours.close();
    }
  });
});
