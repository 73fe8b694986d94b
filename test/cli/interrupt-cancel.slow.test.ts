/**
 * Ctrl-C of `routerjobs apply --api sdx` at the stand-in of the public service (test/standin, written from
 * ALTOSTRAT.md only): SIGINT to the built CLI while its job waits. A job the site's device has not started is
 * cancelled there (`DELETE /site(s)/{id}/job(s)/{jobId}`), the output says so and the next apply submits the
 * change again; a job that already started is reported as running to its end and is left to finish. Exit 130
 * either way (docs/errors.md). The stand-in holds every started job (`holdJobs`), so "queued" and "started"
 * are states the test makes, not timings.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../src/client/index.js";
import { parseMarker } from "../../src/contract/attempt-marker.js";
import { runCli, startCli } from "../helpers/cli.js";
import { expectOneErrorLine } from "../helpers/cli-expect.js";
import { declareJob } from "../helpers/declared-job.js";
import { scratchDir } from "../helpers/scratch.js";
import { waitFor } from "../helpers/wait-for.js";
import { type StandIn, startStandIn } from "../standin/standin.js";

const TOKEN = "alto_sk_interruptCancelS3cr3tQ9zR2mX";

describe("Ctrl-C of apply at the stand-in's sites API", () => {
  const queuedSite = randomUUID();
  const startedSite = randomUUID();
  let standIn: StandIn;
  let client: RouterJobsClient;
  let scratch: string;
  beforeAll(async () => {
    scratch = scratchDir("rj-cli-cancel-");
    standIn = await startStandIn({
      teams: [{ id: randomUUID(), tokens: [TOKEN], sites: [queuedSite, startedSite] }],
      // Only an express submission runs the scheduler; a started job runs until the test releases it.
      tickMs: 3_600_000,
      holdJobs: true,
      rateLimitMax: 100_000,
    });
    client = new RouterJobsClient({
      baseUrl: standIn.url,
      token: TOKEN,
      api: "sdx",
      budgetDir: join(scratch, "test-budget"),
      rateLimit: { count: 100_000, windowMs: 1000 },
    });
  });
  afterAll(async () => {
    await client?.close();
    await standIn?.close();
  });

  const env = (state: string, job: object): Record<string, string> => ({
    ROUTERJOBS_URL: standIn.url,
    ROUTERJOBS_TOKEN: TOKEN,
    ROUTERJOBS_API: "sdx",
    ROUTERJOBS_RATE_LIMIT: "1000/1s",
    ROUTERJOBS_STATE_DIR: join(scratch, state),
    ROUTERJOBS_JOB: JSON.stringify(job),
  });
  /** This change's attempts as the sites API lists them (it leaves deleted jobs out). */
  const attempts = async (site: string) =>
    (await client.listJobs(site)).filter((job) => parseMarker(job.description) !== undefined);

  /** apply started on `job`, interrupted by SIGINT once it waits for the job it submitted and `ready` holds. */
  async function interrupted(job: object, state: string, ready: () => boolean) {
    const apply = startCli(["apply"], { env: env(state, job) });
    try {
      // Submitted: the acknowledgement (with the job's id) is in, and apply polls for the job.
      await apply.printed(/(submitted)/, "apply to submit its job", 60_000);
      await waitFor(() => ready() || undefined, { what: "the job's state at the stand-in" });
      apply.child.kill("SIGINT");
      const code = await apply.exited;
      return { code, ...apply.output() };
    } finally {
      await apply.stop();
    }
  }

  it("cancels a job the device has not started, says so, exits 130, and the next apply submits it again", async () => {
    // GIVEN the site's device busy with another job, held: one job at a time, so the declared job stays queued
    const blockerStarted = standIn.onceJobStarted(queuedSite);
    const { ack: blocker } = await client.submitJob(queuedSite, {
      description: "holds the queue",
      script: ":put 1",
      express_execute: true,
    });
    await blockerStarted;
    const job = declareJob(queuedSite, "cli/cancel/queued", { makeBackup: false, timeoutMs: 120_000 });
    // WHEN apply is interrupted while its job is listed as pending
    const result = await interrupted(job, "queued", () =>
      standIn
        .jobs(queuedSite)
        .some((listed) => listed.description.includes("[rj:") && listed.status === "pending"),
    );
    // THEN it cancelled the job, said so, and ended as interrupted, saying what the next apply does
    expect(result.stdout).toMatch(
      /routerjobs: cli\/cancel\/queued: interrupted: job \S+ cancelled before it started/,
    );
    expectOneErrorLine(
      result,
      130,
      /interrupted: job \S+ was cancelled before it started; the next apply submits the change again/,
      [TOKEN],
    );
    const cancelled = standIn.jobs(queuedSite).find((listed) => listed.description.includes("[rj:"));
    expect(cancelled?.status).toBe("deleted");
    expect(standIn.requests()).toContainEqual(expect.objectContaining({ method: "DELETE", status: 204 }));
    // AND the sites API lists it no more; the device never runs it once the blocker is let go
    expect(await attempts(queuedSite)).toEqual([]);
    standIn.release(blocker.request_id);
    await standIn.waitForStatus(blocker.request_id, "completed");
    expect(standIn.runs(queuedSite)).toHaveLength(1);

    // WHEN apply runs again THEN the change is submitted anew and completes: the cancelled job is not awaited
    // (the device holds every started job: this one is let go once it starts)
    // (a failure to start is the assertions' to report, not an unhandled rejection's)
    standIn
      .onceJobStarted(queuedSite)
      .then((event) => standIn.release(event.job.id))
      .catch(() => {});
    const again = await runCli(["apply"], { env: env("queued", job), timeoutMs: 120_000 });
    expect([again.code, again.stderr]).toEqual([0, ""]);
    expect(again.stdout).toContain("routerjobs: cli/cancel/queued: completed");
    const listed = await attempts(queuedSite);
    expect(listed.map((attempt) => attempt.status)).toEqual(["completed"]);
    expect(listed[0]?.id).not.toBe(cancelled?.id);
    expect(standIn.runs(queuedSite)).toHaveLength(2);
  });

  it("reports a job that already started as running to its end, and leaves it to finish", async () => {
    // GIVEN the declared job started on the device, and held there
    const started = standIn.onceJobStarted(startedSite);
    const job = declareJob(startedSite, "cli/cancel/started", { makeBackup: false, timeoutMs: 120_000 });
    let running: string | undefined;
    started
      .then((event) => {
        running = event.job.id;
      })
      .catch(() => {});
    // WHEN apply is interrupted while it runs
    const result = await interrupted(job, "started", () => running !== undefined);
    // THEN it says so, does not hide it, and exits 130 saying the next apply follows the same job
    expect(result.stdout).toMatch(
      /routerjobs: cli\/cancel\/started: interrupted: job \S+ had already started, so it runs to its end/,
    );
    expectOneErrorLine(result, 130, /interrupted; the next apply resumes waiting for the same job/, [TOKEN]);
    expect((await attempts(startedSite)).map((attempt) => attempt.status)).toEqual(["running"]);
    standIn.release(running);
    await standIn.waitForStatus(running as string, "completed");
    expect((await attempts(startedSite)).map((attempt) => attempt.status)).toEqual(["completed"]);
  });
});
