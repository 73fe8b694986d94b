/**
 * `routerjobs deploy` and `routerjobs reconcile` in the sdx profile (issue 14): the real terraform, the real
 * `routerjobs apply` in each provisioner, against our service's sites API (`/sites`), which answers bare
 * arrays without `status`, leaves `notify_url` out and gives no `error` on a failed job.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMarker } from "../../src/contract/attempt-marker.js";
import { runCli } from "../helpers/cli.js";
import { terraformOrSkip } from "../helpers/terraform.js";
import { ROUTER_A, ROUTER_A2, startTestService, type TestService, TOKEN_A } from "../service/harness.js";
import { startDeployTree, synthesizeOffice } from "./deploy-harness.js";

const terraform = terraformOrSkip("the sdx-profile deploys with terraform");

describe.skipIf(terraform === undefined)(
  "deploy and reconcile through the sites API",
  { timeout: 180_000 },
  () => {
    let service: TestService;
    let work: string;
    let dir: string;
    beforeAll(async () => {
      service = await startTestService({ rateLimit: { count: 1000, windowMs: 1000 } });
      work = mkdtempSync(join(tmpdir(), "rj-sdx-deploy-"));
      dir = join(work, "stack");
      mkdirSync(dir);
      writeFileSync(join(work, "ca.pem"), service.service.ca as string);
    });
    afterAll(async () => {
      rmSync(work, { recursive: true, force: true });
      await service?.close();
    });

    const env = (): Record<string, string> => ({
      ...(process.env as Record<string, string>),
      TF_IN_AUTOMATION: "1",
      CHECKPOINT_DISABLE: "1",
      ROUTERJOBS_URL: service.url,
      ROUTERJOBS_TOKEN: TOKEN_A,
      ROUTERJOBS_CA_FILE: join(work, "ca.pem"),
      ROUTERJOBS_STATE_DIR: join(work, "state"),
      ROUTERJOBS_RATE_LIMIT: "1000/1s",
      ROUTERJOBS_API: "sdx",
    });
    const deploy = () => startDeployTree(dir, env()).done;
    /** The sites API's list of a router: what this profile sees. */
    const sitesJobs = async (routerId: string) =>
      (await service.call("GET", `/sites/${routerId}/jobs`)).body as {
        description: string;
        completed_at: string | null;
        failed_at: string | null;
      }[];
    const attempts = async (routerId: string) =>
      (await sitesJobs(routerId)).filter((job) => parseMarker(job.description) !== undefined);

    it("deploys, reports a failure with the router's reason, reconciles it, and deploys the fix once", async () => {
      // GIVEN the office stack, deployed through the sites API
      synthesizeOffice(dir, { dns: "/ip dns set servers=9.9.9.9" });
      const first = await deploy();
      expect(first.output).not.toContain(TOKEN_A);
      expect(first.code, first.output).toBe(0);
      expect((await attempts(ROUTER_A)).map((job) => job.completed_at !== null)).toEqual([true]);
      expect(await attempts(ROUTER_A2)).toHaveLength(1);

      // WHEN router A's change fails on the router
      synthesizeOffice(dir, { dns: "/ip address add address=10.7.7.1/24 interface=nope" });
      const failed = await deploy();
      // THEN the deploy fails with the router's own reason, read from its log (the sites API gives none)
      expect(failed.code).not.toBe(0);
      expect(failed.output).toContain("input does not match any value of interface");

      // AND reconcile, through the same API, says the failed change will run again and the rest is in place
      const reconciled = await runCli(["reconcile", "--dir", dir, "--json"], {
        env: env(),
        timeoutMs: 60_000,
      });
      expect(reconciled.code).toBe(1);
      const verdicts = Object.fromEntries(
        (JSON.parse(reconciled.stdout) as { resource: string; verdict: string }[]).map((row) => [
          row.resource,
          row.verdict,
        ]),
      );
      expect(verdicts["office/edge-a/dns"]).toBe("tainted");
      expect(verdicts["office/edge-a2/identity"]).toBe("ok");

      // WHEN the fix is deployed THEN it runs once and the failed attempt stays failed
      synthesizeOffice(dir, { dns: "/ip dns set servers=1.0.0.1" });
      const fixed = await deploy();
      expect(fixed.code, fixed.output).toBe(0);
      const runs = await attempts(ROUTER_A);
      expect(runs.filter((job) => job.failed_at !== null)).toHaveLength(1);
      expect(runs.filter((job) => job.completed_at !== null)).toHaveLength(2);
      const [dns] = (
        await service.call("POST", `/sites/${ROUTER_A}/commands/synchronous`, {
          body: { command: "/ip/dns/print" },
        })
      ).body as { servers: string }[];
      expect(dns?.servers).toBe("1.0.0.1");
    });
  },
);
