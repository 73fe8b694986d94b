/**
 * Ctrl-C of an apply whose job waits: where the API cancels a job that has not started (the sites API), the
 * job is cancelled, so an interrupted deploy leaves nothing queued behind it; a job that already started is
 * said so and runs to its end.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../../src/client/client.js";
import { applyJob } from "../../../src/deploy/apply/apply.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import { InterruptedError } from "../../../src/errors.js";
import { declareJob } from "../../helpers/declared-job.js";
import { waitFor } from "../../helpers/wait-for.js";
import { GatedBackend } from "../../service/gated-backend.js";
import { ROUTER_A, ROUTER_A2, startTestService, type TestService, TOKEN_A } from "../../service/harness.js";

describe("apply interrupted while its job waits, through the sites API", () => {
  let svc: TestService;
  let backend: GatedBackend;
  let stateDir: string;
  let client: RouterJobsClient;
  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "rj-interrupt-"));
    backend = new GatedBackend();
    svc = await startTestService({}, backend);
    client = new RouterJobsClient({
      api: "sdx",
      baseUrl: svc.url,
      token: TOKEN_A,
      ca: svc.service.ca,
      budgetDir: stateDir,
      rateLimit: { count: 1000, windowMs: 1000 },
    });
  });
  afterAll(async () => {
    backend?.releaseAll();
    await client?.close();
    await svc?.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  /** Runs apply and stops it (as Ctrl-C does) once `ready` holds; resolves to what it printed and threw. */
  async function interrupt(
    job: ReturnType<typeof declareJob>,
    ready: (lines: string[]) => Promise<boolean>,
  ): Promise<{ lines: string[]; stopped: InterruptedError; thrown: unknown }> {
    const controller = new AbortController();
    const stopped = new InterruptedError("interrupted");
    const lines: string[] = [];
    const applying = applyJob(job, {
      client,
      journal: new Journal(stateDir),
      instanceId: "interrupt",
      write: (line) => lines.push(line),
      signal: controller.signal,
    });
    await waitFor(async () => ((await ready(lines)) ? true : undefined), {
      what: "apply to wait for its job",
    });
    controller.abort(stopped);
    const thrown = await applying.then(
      () => undefined,
      (error: unknown) => error,
    );
    return { lines, stopped, thrown };
  }

  it("cancels a job that has not started, says so, and the router never runs it", async () => {
    // GIVEN a router whose queue is held by another job's script, so the declared job waits queued
    backend.held.add(ROUTER_A);
    await svc.submit(ROUTER_A, { description: "holds the queue", script: ":put 1" });
    await waitFor(() => (backend.started.includes(ROUTER_A) ? true : undefined), {
      what: "the first script",
    });
    const job = declareJob(ROUTER_A, "interrupt/queued", false);
    // WHEN apply is interrupted once its job is listed
    const { lines, thrown } = await interrupt(job, async () => (await svc.jobs(ROUTER_A)).length >= 2);
    // THEN the job is cancelled, not left queued behind the interrupted deploy, and the interrupt says so
    expect(lines.join("\n")).toMatch(/interrupted: job \S+ cancelled before it started/);
    expect(thrown).toBeInstanceOf(InterruptedError);
    expect((thrown as Error).message).toMatch(
      /^interrupted: job \S+ was cancelled before it started; the next apply submits the change again$/,
    );
    const jobs = (await svc.jobs(ROUTER_A)) as { description: string; status: string }[];
    expect(jobs.find((listed) => listed.description.startsWith("set identity"))?.status).toBe("deleted");
    backend.releaseAll();
    await waitFor(
      async () => {
        const all = (await svc.jobs(ROUTER_A)) as { status: string }[];
        return (
          all.every((listed) => listed.status === "completed" || listed.status === "deleted") || undefined
        );
      },
      { what: "the holding job to finish" },
    );
    expect(backend.started.filter((routerId) => routerId === ROUTER_A)).toHaveLength(1);

    // WHEN apply runs again THEN the change is submitted anew (a fresh key: the cancelled job's key is spent)
    const again = await applyJob(job, {
      client,
      journal: new Journal(stateDir),
      instanceId: "interrupt",
      write: () => {},
    });
    expect(again).toMatchObject({ outcome: "completed", alreadyApplied: false });
    expect(backend.started.filter((routerId) => routerId === ROUTER_A)).toHaveLength(2);
  });

  it("leaves a job that already started to finish, and says so", async () => {
    // GIVEN the declared job's script running and held
    backend.held.add(ROUTER_A2);
    const job = declareJob(ROUTER_A2, "interrupt/running", false);
    const before = backend.started.length;
    // WHEN apply is interrupted while the script runs
    const { lines, stopped, thrown } = await interrupt(job, async () => backend.started.length > before);
    expect(thrown).toBe(stopped);
    // THEN it says the job runs to its end, and the job completes once the router is let go
    expect(lines.join("\n")).toMatch(/interrupted: job \S+ had already started, so it runs to its end/);
    backend.releaseAll();
    await waitFor(
      async () => {
        const all = (await svc.jobs(ROUTER_A2)) as { status: string }[];
        return all.some((listed) => listed.status === "completed") || undefined;
      },
      { what: "the job to complete" },
    );
  });
});
