/**
 * A cdktf stack whose RouterConfig is backed by the provider (`resource: "provider"`), synthesized and handed to
 * the real Terraform as `cdktf deploy` would: a plain `terraform init` from the mirror `routerjobs provider
 * install` wrote, plan (the twin's diff), apply against the embedded service with a simulated router (each
 * section runs once, in order), an apply with nothing to do, and destroy (the destroy script once).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import { RouterConfig } from "../../../src/deploy/constructs/index.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { scratchDir } from "../../helpers/scratch.js";
import { providerRun, type TerraformDir, terraformOrSkip } from "../../helpers/terraform.js";
import {
  ROUTER_A,
  startTestService,
  type TestService,
  TOKEN_A,
  writeServiceCa,
} from "../../service/harness.js";
import { officeVlans } from "../plan/fixtures.js";

const terraform = terraformOrSkip('a resource: "provider" stack under the real terraform');

describe.skipIf(terraform === undefined)('a stack with resource: "provider" under terraform', () => {
  let work: string;
  let svc: TestService;
  let client: RouterJobsClient;
  let tf: TerraformDir;

  beforeAll(async () => {
    work = scratchDir("rj-provider-stack-");
    svc = await startTestService({}, new SimulatedBackend({ seed: 11 }));
    ({ tf, client } = providerRun(terraform as string, work, {
      url: svc.url,
      token: TOKEN_A,
      ca: svc.service.ca ?? "",
      caFile: writeServiceCa(svc, work),
    }));
    // The app as a user writes it, synthesized by cdktf itself.
    const outdir = mkdtempSync(join(tmpdir(), "rj-provider-out-"));
    const app = new App({ outdir });
    const stack = new TerraformStack(app, "office");
    new LocalBackend(stack, { path: join(tf.dir, "terraform.tfstate") });
    new RouterConfig(stack, "edge-1", {
      routerId: ROUTER_A,
      resource: "provider",
      sections: [
        { name: "identity", description: "identity", script: '/system identity set name="edge-1"' },
        {
          name: "dns",
          description: "dns servers",
          script: "/ip dns set servers=9.9.9.9",
          destroyScript: '/ip dns set servers=""',
        },
      ],
    });
    app.synth();
    tf.use(join(outdir, "stacks", "office", "cdk.tf.json"));
    rmSync(outdir, { recursive: true, force: true });
  });

  afterAll(async () => {
    await client?.close();
    tf?.remove();
    await svc?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** The router's jobs, oldest first (the list is newest first). */
  const jobs = async () =>
    (await client.listJobs(ROUTER_A))
      .sort((a, b) => (a.seq_id ?? 0) - (b.seq_id ?? 0))
      .map((job) => ({
        description: job.description.replace(/ \[rj:.*$/, ""),
        status: job.status,
      }));

  it("inits offline from the mirror and plans each section on the router's twin", async () => {
    expect(await tf.mustRun(["init", "-input=false"])).toContain("routerjobs.local/routerjobs/routerjobs");
    const plan = await tf.mustRun(["plan", "-input=false"]);
    expect(plan).toContain("Plan: 2 to add");
    expect(plan).toMatch(/\/ip dns\s+[+~] .*servers=9\.9\.9\.9/);
    expect(await jobs()).toEqual([]);
  });

  it("applies each section once and in order, then has nothing to do; the token is in no file", async () => {
    expect(await tf.mustRun(["apply", "-input=false", "-auto-approve"])).toContain("2 added");
    expect(await jobs()).toEqual([
      { description: "identity", status: "completed" },
      { description: "dns servers", status: "completed" },
    ]);
    const secret = TOKEN_A.split(":").at(-1) ?? TOKEN_A;
    for (const file of ["cdk.tf.json", "terraform.tfstate"])
      expect(readFileSync(join(tf.dir, file), "utf8").includes(secret), file).toBe(false);
    expect(await tf.mustRun(["apply", "-input=false", "-auto-approve"])).toContain("No changes.");
    expect(await jobs()).toHaveLength(2);
  });

  it("fails the plan of a change that would cut the service off, naming the setting; reach = off plans it", async () => {
    // GIVEN the router's configuration as an office's, whose API-SSL the service connects to from 10.10.99.5
    const loaded = await svc.call("POST", `/api/synchronous/${ROUTER_A}`, {
      body: { command: "/execute", parameters: `=script=${officeVlans}` },
    });
    expect(loaded.status).toBe(200);
    const before = (await jobs()).length;
    // WHEN a script that moves the API-SSL port is planned beside the stack
    writeFileSync(
      join(tf.dir, "lockout.tf.json"),
      JSON.stringify({
        resource: {
          routerjobs_script: {
            lockout: {
              router_id: ROUTER_A,
              description: "move api-ssl",
              script: "/ip service set api-ssl port=8730",
            },
          },
        },
      }),
    );
    try {
      const plan = await tf.run(["plan", "-input=false"], { ROUTERJOBS_SERVICE_ADDRESS: "10.10.99.5" });
      // THEN the plan fails with what cuts it off, and nothing is submitted
      expect(plan.status, plan.output).not.toBe(0);
      expect(plan.output.replace(/\s+/g, " ")).toContain(
        `this change would cut the service off from router ${ROUTER_A}: /ip service api-ssl listens on tcp/8730, not tcp/8729`,
      );
      const off = await tf.run(["plan", "-input=false"], { ROUTERJOBS_REACH: "off" });
      expect(off.status, off.output).toBe(0);
      expect((await jobs()).length).toBe(before);
    } finally {
      rmSync(join(tf.dir, "lockout.tf.json"));
    }
  });

  it("runs the destroy script once on destroy", async () => {
    expect(await tf.mustRun(["destroy", "-input=false", "-auto-approve"])).toContain("2 destroyed");
    const after = await jobs();
    expect(after).toHaveLength(3);
    expect(after[2]).toEqual({ description: "destroy: dns servers", status: "completed" });
  });
});
