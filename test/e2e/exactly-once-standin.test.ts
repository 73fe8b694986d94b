/**
 * Exactly once at a service that ignores Idempotency-Key and answers 200: the stand-in of the public service
 * (test/standin, written from ALTOSTRAT.md alone), over TLS with an opaque API key. `routerjobs deploy` (built
 * CLI, real terraform, real applies) is killed with SIGKILL, process tree and all, at the points where only the
 * job list can tell what happened; then deploy runs again with the apply journal kept or lost (a fresh CI
 * runner). Runs per declared change are counted on the stand-in's devices. Kill points are found by watching
 * the stand-in, never by time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parseMarker, tagOf } from "../../src/contract/attempt-marker.js";
import { terraformOrSkip } from "../helpers/terraform.js";
import { eventually, ROUTER_A, ROUTER_A2 } from "../service/harness.js";
import { type StandIn, type StandInOptions, startStandIn } from "../standin/standin.js";
import { killTree, startDeployTree, synthesizeOffice } from "./deploy-harness.js";

const terraform = terraformOrSkip("the exactly-once deploys against the stand-in with terraform");
const TOKEN = "console-api-key-5f3c2a9e8b7d4c1f";
const TEAM = "7e000000-0000-4000-8000-0000000000e1";

describe.skipIf(terraform === undefined)(
  "exactly once at a service that ignores Idempotency-Key (the stand-in), whatever is killed",
  { timeout: 180_000 },
  () => {
    let standIn: StandIn | undefined;
    let work: string;
    let dir: string;
    let stateDir: string;
    const figures: string[] = [];

    afterAll(() => {
      console.log(`exactly once at the stand-in under SIGKILL: ${figures.join("; ")}`);
    });
    afterEach(async () => {
      await standIn?.close();
      standIn = undefined;
      rmSync(work, { recursive: true, force: true });
    });

    async function start(options: Partial<StandInOptions> = {}): Promise<StandIn> {
      const started = await startStandIn({
        teams: [{ id: TEAM, tokens: [TOKEN], sites: [ROUTER_A, ROUTER_A2] }],
        tls: true,
        rateLimitMax: 1000,
        tickMs: 20,
        ...options,
      });
      standIn = started;
      work = mkdtempSync(join(tmpdir(), "rj-once-standin-"));
      dir = join(work, "stack");
      mkdirSync(dir);
      stateDir = join(work, "state");
      writeFileSync(join(work, "ca.pem"), started.ca as string);
      return started;
    }
    const env = (service: StandIn): NodeJS.ProcessEnv => ({
      ...process.env,
      TF_IN_AUTOMATION: "1",
      CHECKPOINT_DISABLE: "1",
      ROUTERJOBS_URL: service.url,
      ROUTERJOBS_TOKEN: TOKEN,
      ROUTERJOBS_CA_FILE: join(work, "ca.pem"),
      ROUTERJOBS_STATE_DIR: stateDir,
      ROUTERJOBS_RATE_LIMIT: "1000/1s",
    });
    const deploy = (service: StandIn) => startDeployTree(dir, env(service));
    /** How often router A's dns change ran on the stand-in's device. */
    const dnsRuns = (service: StandIn) =>
      service
        .runs(ROUTER_A)
        .filter((run) => parseMarker(run.description)?.resourceTag === tagOf("office/edge-a/dns")).length;

    for (const journal of ["kept", "lost"] as const) {
      describe(`with the apply journal ${journal === "kept" ? "kept" : "lost (a fresh CI runner)"}`, () => {
        const rerun = (service: StandIn) => {
          if (journal === "lost") rmSync(stateDir, { recursive: true, force: true });
          return deploy(service).done;
        };

        it("killed between the submission and its acknowledgement: found by its marker, run once", async () => {
          const service = await start({ holdAcknowledgements: true });
          synthesizeOffice(dir, { dns: "/ip dns set servers=1.1.1.1" });
          const run = deploy(service);
          // The stand-in took a submission and holds its answer: the client cannot know the job exists.
          await service.acknowledgementHeld(ROUTER_A);
          killTree(run.child);
          await run.done;
          service.releaseAcknowledgements();
          await eventually(async () => (dnsRuns(service) === 1 ? true : undefined));
          const again = await rerun(service);
          expect(again.code, again.output).toBe(0);
          expect(dnsRuns(service)).toBe(1);
          figures.push(`between submission and answer, journal ${journal}: 1 run`);
        });

        it("killed while its job runs: the re-run adopts it and it runs once", async () => {
          const service = await start({ holdJobs: true });
          synthesizeOffice(dir, { dns: "/ip dns set servers=1.1.1.1" });
          const run = deploy(service);
          await service.onceJobStarted(ROUTER_A);
          killTree(run.child);
          await run.done;
          service.stopHolding();
          const again = await rerun(service);
          expect(again.code, again.output).toBe(0);
          expect(again.output).toContain("not submitting it again");
          expect(dnsRuns(service)).toBe(1);
          figures.push(`while running, journal ${journal}: 1 run`);
        });
      });
    }

    it("killed before anything reached the service: the re-run submits it, once", async () => {
      const service = await start();
      synthesizeOffice(dir, { dns: "/ip dns set servers=1.1.1.1" });
      const run = deploy(service);
      // The first request of the deploy (its reconciliation reads the job lists) shows it is under way.
      await eventually(async () => (service.requests().length > 0 ? true : undefined), 60_000);
      const postedBeforeKill = service.requests().some((request) => request.method === "POST");
      killTree(run.child);
      await run.done;
      rmSync(stateDir, { recursive: true, force: true });
      const again = await deploy(service).done;
      expect(again.code, again.output).toBe(0);
      expect(dnsRuns(service)).toBe(1);
      figures.push(
        `before the submission (${postedBeforeKill ? "a submission had left" : "nothing submitted"}): 1 run`,
      );
    });

    it("killed, then the job fails: the re-run on a fresh runner reports it and does not run it again", async () => {
      const service = await start({ holdJobs: true });
      synthesizeOffice(dir, { dns: '/ip dns set servers=1.1.1.1\n:error "dns rejected"' });
      const run = deploy(service);
      await service.onceJobStarted(ROUTER_A);
      killTree(run.child);
      await run.done;
      service.stopHolding();
      await eventually(async () =>
        service.jobs(ROUTER_A).some((job) => job.status === "failed") ? true : undefined,
      );
      rmSync(stateDir, { recursive: true, force: true });
      const again = await deploy(service).done;
      expect(again.code, again.output).toBe(1);
      expect(again.output).toMatch(/failed/);
      expect(dnsRuns(service)).toBe(1);
      figures.push(
        "failed after the kill, fresh runner: reported (the public service gives no reason), 1 run",
      );
    });
  },
);
