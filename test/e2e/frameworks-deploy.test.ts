/**
 * The same small stack deployed for real under cdktf and under cdktn: synthesized by each framework, applied
 * and destroyed by the real `terraform`, each provisioner the built `routerjobs apply` against the service on
 * loopback (TLS, simulated routers).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripMarker } from "../../src/contract/attempt-marker.js";
import type { FrameworkName } from "../../src/deploy/constructs/framework.js";
import {
  FRAMEWORK_NAMES,
  loadFramework,
  synthesizeSmallStack,
} from "../deploy/constructs/framework-stack.js";
import { TerraformDir, terraformOrSkip } from "../helpers/terraform.js";
import { ROUTER_A, ROUTER_A2, startTestService, type TestService, TOKEN_A } from "../service/harness.js";

const terraform = terraformOrSkip("the deploy of the same stack under cdktf and cdktn");
const CLI = `${process.execPath} ${join(import.meta.dirname, "..", "..", "bin", "routerjobs.js")}`;
// One router per framework, so each deploy's jobs are counted apart.
const ROUTER_OF: Record<FrameworkName, string> = { cdktf: ROUTER_A, cdktn: ROUTER_A2 };

describe.skipIf(terraform === undefined)("the same stack deployed under each framework", () => {
  let service: TestService;
  let work: string;
  let environment: NodeJS.ProcessEnv;

  beforeAll(async () => {
    service = await startTestService({ rateLimit: { count: 600, windowMs: 1000 } });
    work = mkdtempSync(join(tmpdir(), "rj-fw-e2e-"));
    writeFileSync(join(work, "ca.pem"), service.service.ca as string);
    environment = {
      ROUTERJOBS_URL: service.url,
      ROUTERJOBS_TOKEN: TOKEN_A,
      ROUTERJOBS_CA_FILE: join(work, "ca.pem"),
      ROUTERJOBS_STATE_DIR: join(work, "state"),
      ROUTERJOBS_RATE_LIMIT: "600/1s",
    };
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await service?.close();
  });

  const print = async (routerId: string, command: string) =>
    (await service.call("POST", `/api/synchronous/${routerId}`, { body: { command } })).body.data[0];

  it.each(FRAMEWORK_NAMES)("%s: applies both jobs in order, then runs the destroy job", async (name) => {
    // GIVEN the small stack synthesized by the framework's own App
    const routerId = ROUTER_OF[name];
    const tf = new TerraformDir(terraform as string, environment);
    try {
      const cdk = await loadFramework(name);
      const text = synthesizeSmallStack(cdk, {
        routerId,
        cli: CLI,
        dns: "9.9.9.9",
        statePath: join(tf.dir, "terraform.tfstate"),
      });
      writeFileSync(join(tf.dir, "cdk.tf.json"), text);
      // WHEN terraform initializes and applies it
      await tf.mustRun(["init", "-input=false"]);
      const output = await tf.mustRun(["apply", "-auto-approve", "-input=false"]);
      // THEN both jobs completed on the router, identity first, and the router holds the configuration
      const jobs = await service.jobs(routerId);
      expect(jobs.map((job: { status: string }) => job.status)).toEqual(["completed", "completed"]);
      expect(jobs.map((job: { description: string }) => stripMarker(job.description))).toEqual([
        "dns servers",
        "identity",
      ]);
      expect((await print(routerId, "/ip/dns/print")).servers).toBe("9.9.9.9");
      expect(output).toMatch(/routerjobs: office\/edge-a\/dns: completed/);
      // AND a destroy runs the declared destroy job, which empties the dns servers
      await tf.mustRun(["destroy", "-auto-approve", "-input=false"]);
      const after = await service.jobs(routerId);
      expect(after).toHaveLength(3);
      expect(stripMarker(after[0].description)).toBe("dns servers");
      expect((await print(routerId, "/ip/dns/print")).servers ?? "").toBe("");
    } finally {
      tf.remove();
    }
  });
});
