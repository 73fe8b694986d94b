/**
 * Exactly once, for real: `routerjobs deploy` (built CLI) runs the real terraform, whose provisioners run the
 * real `routerjobs apply`, against the service on loopback. The whole process tree of the deploy is killed
 * with SIGKILL at the moments that broke the promise before (issue 13), then deploy runs again, with the
 * apply journal kept or on a fresh machine (an empty state directory). Runs per declared change are counted
 * in the routers' job lists. Kill points are found by watching the service and the state file, never by time.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseMarker, tagOf } from "../../src/contract/attempt-marker.js";
import type { SimulatedBackend } from "../../src/simulator/index.js";
import { terraformOrSkip } from "../helpers/terraform.js";
import {
  eventually,
  type Loose,
  ROUTER_A,
  startTestService,
  type TestService,
  TOKEN_A,
} from "../service/harness.js";
import { BIN, killTree, type Layout, startDeployTree, synthesizeOffice } from "./deploy-harness.js";

const terraform = terraformOrSkip("the exactly-once deploys with terraform");

describe.skipIf(terraform === undefined)(
  "every declared change runs exactly once, whatever is killed",
  { timeout: 180_000 },
  () => {
    let service: TestService;
    let work: string;
    let dir: string;
    let stateDir: string;
    const figures: string[] = [];

    afterAll(() => {
      console.log(`exactly once under SIGKILL: ${figures.join("; ")}`);
    });
    beforeEach(async () => {
      service = await startTestService({ rateLimit: { count: 1000, windowMs: 1000 } });
      work = mkdtempSync(join(tmpdir(), "rj-once-"));
      dir = join(work, "stack");
      mkdirSync(dir);
      stateDir = join(work, "state");
      writeFileSync(join(work, "ca.pem"), service.service.ca as string);
    });
    afterEach(async () => {
      rmSync(work, { recursive: true, force: true });
      await service.close();
    });

    const backend = () => service.backend as SimulatedBackend;
    /** Router A stops taking jobs (they wait, pending); the service attaches a router on its first use. */
    const holdRouterA = async () => {
      await service.call("POST", `/api/synchronous/${ROUTER_A}`, {
        body: { command: "/system/identity/print" },
      });
      backend().setOnline(ROUTER_A, false);
    };
    const env = (): NodeJS.ProcessEnv => ({
      ...process.env,
      TF_IN_AUTOMATION: "1",
      CHECKPOINT_DISABLE: "1",
      ROUTERJOBS_URL: service.url,
      ROUTERJOBS_TOKEN: TOKEN_A,
      ROUTERJOBS_CA_FILE: join(work, "ca.pem"),
      ROUTERJOBS_STATE_DIR: stateDir,
      ROUTERJOBS_RATE_LIMIT: "1000/1s",
    });

    const synthesize = (layout: Layout) => synthesizeOffice(dir, layout);
    const startDeploy = () => startDeployTree(dir, env());
    const deploy = async () => startDeploy().done;

    /** Jobs of one declared change (router A's dns, definition by script), with how many of them ran. */
    async function runsOf(routerId: string, resource: string): Promise<Map<string, Loose[]>> {
      const byDefinition = new Map<string, Loose[]>();
      for (const job of await service.jobs(routerId)) {
        const marker = parseMarker(job.description);
        if (!marker || marker.resourceTag !== tagOf(resource)) continue;
        const ran = job.started_at !== null || job.status === "failed";
        if (!ran) continue;
        byDefinition.set(marker.definitionTag, [...(byDefinition.get(marker.definitionTag) ?? []), job]);
      }
      return byDefinition;
    }
    const dnsRuns = () => runsOf(ROUTER_A, "office/edge-a/dns");
    const pendingOnA = () =>
      eventually(
        async () => (await service.jobs(ROUTER_A)).find((job: Loose) => job.status === "pending"),
        60_000,
      );
    const stateHolds = (text: string) =>
      eventually(async () => {
        const file = join(dir, "terraform.tfstate");
        return existsSync(file) && readFileSync(file, "utf8").includes(text) ? true : undefined;
      }, 5_000);
    /** The job_key of router A's dns job in the synthesized stack: what its resource's state records. */
    const dnsJobKey = (): string => {
      const config = JSON.parse(readFileSync(join(dir, "cdk.tf.json"), "utf8"));
      const [, resource] = Object.entries(config.resource.terraform_data).find(([name]) =>
        name.startsWith("edge-a_dns"),
      ) as [string, { triggers_replace: { job_key: string } }];
      return resource.triggers_replace.job_key;
    };
    const freshMachine = () => rmSync(stateDir, { recursive: true, force: true });

    /** Every run of every definition of router A's dns exactly once, and the router holds the last one. */
    async function expectEachOnce(expectedDefinitions: number, servers: string): Promise<void> {
      const runs = await dnsRuns();
      expect([...runs.values()].map((jobs) => jobs.length)).toEqual(Array(expectedDefinitions).fill(1));
      const [dns] = (
        await service.call("POST", `/api/synchronous/${ROUTER_A}`, { body: { command: "/ip/dns/print" } })
      ).body.data;
      expect(dns.servers).toBe(servers);
    }

    for (const journal of ["kept", "lost"] as const) {
      describe(`with the apply journal ${journal === "kept" ? "kept" : "lost (a fresh CI runner)"}`, () => {
        const rerun = async () => {
          if (journal === "lost") freshMachine();
          return deploy();
        };

        it("killed while its job waits at the service: the re-run waits for the same job", async () => {
          synthesize({ dns: "/ip dns set servers=1.1.1.1" });
          await holdRouterA();
          const run = startDeploy();
          await pendingOnA();
          killTree(run.child);
          await run.done;
          backend().setOnline(ROUTER_A, true);
          const again = await rerun();
          expect(again.code, again.output).toBe(0);
          expect(again.output).toContain("not submitting it again");
          await expectEachOnce(1, "1.1.1.1");
          figures.push(`waiting, journal ${journal}: 1 run`);
        });

        it("killed, then the job fails: the re-run reports the router's reason and does not run it again", async () => {
          synthesize({
            dns: "/ip dns set servers=1.1.1.1\n/ip address add address=10.1.1.1/24 interface=nope",
          });
          await holdRouterA();
          const run = startDeploy();
          await pendingOnA();
          killTree(run.child);
          await run.done;
          backend().setOnline(ROUTER_A, true);
          await eventually(async () =>
            (await service.jobs(ROUTER_A)).find((job: Loose) => job.status === "failed"),
          );
          const again = await rerun();
          expect(again.code).toBe(1);
          expect(again.output).toContain("input does not match any value of interface");
          expect([...(await dnsRuns()).values()].map((jobs) => jobs.length)).toEqual([1]);
          // AND the next deploy is the deliberate retry Terraform asks for (the resource is tainted)
          const retry = await rerun();
          expect(retry.code).toBe(1);
          expect([...(await dnsRuns()).values()].map((jobs) => jobs.length)).toEqual([2]);
          figures.push(`failed after the kill, journal ${journal}: reported, then retried deliberately`);
        });

        it("killed when Terraform recorded the resource while its provisioner still waited (the blind spot)", async () => {
          // GIVEN a deployed stack
          synthesize({ dns: "/ip dns set servers=1.1.1.1", a2Extra: true });
          expect((await deploy()).code).toBe(0);
          // WHEN router A's change waits while a sibling is destroyed (Terraform then persists its state), and the
          // deploy is killed once the state holds A's new instance
          synthesize({
            dns: "/ip dns set servers=9.9.9.9\n/ip address add address=10.2.2.1/24 interface=nope",
          });
          await holdRouterA();
          const run = startDeploy();
          await pendingOnA();
          const newDefinition = (await service.jobs(ROUTER_A)).find((job: Loose) => job.status === "pending");
          // (Terraform may write the new instance to its state while the provisioner still waits: the blind spot.)
          const recorded = await stateHolds(dnsJobKey()).then(
            () => true,
            () => false,
          );
          killTree(run.child);
          await run.done;
          // AND the job fails after the kill
          backend().setOnline(ROUTER_A, true);
          await eventually(async () =>
            (await service.jobs(ROUTER_A)).find(
              (job: Loose) => job.id === newDefinition.id && job.status === "failed",
            ),
          );
          // THEN the next deploy reports the failure and taints the resource, without running it again
          const again = await rerun();
          expect(again.code, again.output).toBe(1);
          expect(again.output).toContain("input does not match any value of interface");
          const runs = await dnsRuns();
          expect([...runs.values()].map((jobs) => jobs.length).sort()).toEqual([1, 1]);
          figures.push(
            `blind spot (state written ${recorded ? "mid-provisioner" : "before"}), journal ${journal}: failure reported`,
          );
        });

        it("killed in the middle of a destroy-then-create replacement", async () => {
          synthesize({ dns: "/ip dns set servers=1.1.1.1", dnsDestroy: true });
          expect((await deploy()).code).toBe(0);
          synthesize({ dns: "/ip dns set servers=8.8.8.8", dnsDestroy: true });
          await holdRouterA();
          const run = startDeploy();
          // The destroy job of the old definition is the first to wait.
          await pendingOnA();
          killTree(run.child);
          await run.done;
          backend().setOnline(ROUTER_A, true);
          const again = await rerun();
          expect(again.code, again.output).toBe(0);
          // THEN the create ran once per definition and the destroy job once
          await expectEachOnce(3, "8.8.8.8");
          figures.push(`replacement, journal ${journal}: destroy and create once each`);
        });
      });
    }

    it("a deliberate -replace runs the change again; a plain re-deploy does not", async () => {
      synthesize({ dns: "/ip dns set servers=1.1.1.1" });
      expect((await deploy()).code).toBe(0);
      freshMachine();
      expect((await deploy()).code).toBe(0);
      expect([...(await dnsRuns()).values()].map((jobs) => jobs.length)).toEqual([1]);
      const address = (await reconcileJson()).find(
        (row: Loose) => row.resource === "office/edge-a/dns",
      ).address;
      freshMachine();
      const replaced = spawn(process.execPath, [BIN, "deploy", "--dir", dir, "--", `-replace=${address}`], {
        env: env(),
        stdio: "ignore",
      });
      expect(await new Promise((resolve) => replaced.on("close", resolve))).toBe(0);
      expect([...(await dnsRuns()).values()].map((jobs) => jobs.length)).toEqual([2]);
    });

    async function reconcileJson(): Promise<Loose[]> {
      const child = spawn(process.execPath, [BIN, "reconcile", "--json", "--dir", dir], { env: env() });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      await new Promise((resolve) => child.on("close", resolve));
      return JSON.parse(out);
    }
  },
);
