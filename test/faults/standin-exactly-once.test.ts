/**
 * Exactly once at a service that ignores Idempotency-Key: the stand-in of the public service (test/standin,
 * written from ALTOSTRAT.md alone) answers a submission 200 with a key of its own, so apply can find an attempt
 * whose answer was lost only by the marker in its description. Faults through a TCP proxy on loopback.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../src/client/index.js";
import type { ApplyJob } from "../../src/contract/apply-job.js";
import { parseMarker } from "../../src/contract/attempt-marker.js";
import { applyJob } from "../../src/deploy/apply/apply.js";
import { Journal } from "../../src/deploy/apply/journal.js";
import { declareJob } from "../helpers/declared-job.js";
import { FaultProxy } from "../helpers/fault-proxy.js";
import { type StandIn, startStandIn } from "../standin/standin.js";

const SITE = "5e000000-0000-4000-8000-000000000001";
const TOKEN = "opaque-console-key-0123456789abcdef";

describe("exactly once at a service that ignores Idempotency-Key (the stand-in's API A)", () => {
  let standIn: StandIn;
  let proxy: FaultProxy;
  let stateDir: string;

  beforeAll(async () => {
    standIn = await startStandIn({
      teams: [{ id: "7e000000-0000-4000-8000-000000000001", tokens: [TOKEN], sites: [SITE] }],
      rateLimitMax: 1000,
      tickMs: 20,
    });
    const { port } = new URL(standIn.url);
    proxy = await FaultProxy.start({ host: "127.0.0.1", port: Number(port) });
    stateDir = await mkdtemp(join(tmpdir(), "rj-standin-once-"));
  });
  afterAll(async () => {
    await proxy?.close();
    await standIn?.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  const declare = (resource: string, script: string): ApplyJob => {
    return declareJob(SITE, resource, {
      description: `declared ${resource}`,
      script,
      makeBackup: true,
      express: true,
      waitFor: "poll",
      timeoutMs: 20_000,
    });
  };
  const apply = async (job: ApplyJob, journalDir: string) => {
    const client = new RouterJobsClient({
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      token: TOKEN,
      budgetDir: stateDir,
      rateLimit: { count: 1000, windowMs: 1000 },
    });
    const lines: string[] = [];
    try {
      const result = await applyJob(job, {
        client,
        journal: new Journal(journalDir),
        instanceId: "instance-1",
        write: (line: string) => lines.push(line),
      });
      return { result, lines };
    } finally {
      await client.close();
    }
  };
  const runsOf = (resource: string) =>
    standIn
      .runs(SITE)
      .filter(
        (run) =>
          parseMarker(run.description) !== undefined && run.description.startsWith(`declared ${resource}`),
      );

  it("finds the attempt whose answer was lost by its marker, runs it once, and a fresh runner adopts it", async () => {
    const job = declare("standin/reset", "/system identity set name=after-reset");
    // The first exchange is apply's look at the job list; the second, the submission, loses its answer.
    const faults = [{}, { resetOnResponse: true }];
    proxy.set(() => faults.shift() ?? {});
    const first = await apply(job, await mkdtemp(join(stateDir, "runner-1-")));
    proxy.set({});
    expect(first.result.outcome).toBe("completed");
    expect(first.lines.some((line) => line.includes("may have reached the service"))).toBe(true);
    expect(runsOf("standin/reset")).toHaveLength(1);
    // A new CI runner without the journal applies the same change again: the job list says it is done.
    const second = await apply(job, await mkdtemp(join(stateDir, "runner-2-")));
    expect(second.result.outcome).toBe("completed");
    expect(runsOf("standin/reset")).toHaveLength(1);
    expect(
      standIn.jobs(SITE).filter((item) => item.description.startsWith("declared standin/reset")),
    ).toHaveLength(1);
  });
});
