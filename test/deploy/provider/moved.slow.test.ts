/**
 * A stack moving from the provisioner form to the provider without running anything twice: a cdktf app's
 * RouterConfig deployed by plain `terraform apply` with `terraform_data` and `routerjobs apply` provisioners,
 * then synthesized again with `resource: "provider"` (the constructs write a `moved` block for each job
 * resource) and planned and applied by the real Terraform: the completed jobs move across (their state holds
 * the jobs that ran), a section whose script changed in the same step runs once as a new job, and a second
 * apply has nothing to do.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import type { JobListItem } from "../../../src/contract/job.js";
import { RouterConfig, type RouterSection } from "../../../src/deploy/constructs/index.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { BIN } from "../../e2e/deploy-harness.js";
import { scratchDir } from "../../helpers/scratch.js";
import { providerRun, type TerraformDir, terraformOrSkip } from "../../helpers/terraform.js";
import {
  ROUTER_A,
  startTestService,
  type TestService,
  TOKEN_A,
  writeServiceCa,
} from "../../service/harness.js";

const terraform = terraformOrSkip(
  "moving a stack from terraform_data to the provider under the real terraform",
);
const CLI = `${process.execPath} ${BIN}`;

const SECTIONS: RouterSection[] = [
  { name: "identity", description: "identity", script: '/system identity set name="edge-1"' },
  {
    name: "dns",
    description: "dns servers",
    script: "/ip dns set servers=9.9.9.9",
    destroyScript: '/ip dns set servers=""',
  },
  { name: "ntp", description: "ntp", script: "/system ntp client set enabled=yes" },
];

describe.skipIf(terraform === undefined)("moved from terraform_data to routerjobs_script", () => {
  let work: string;
  let svc: TestService;
  let client: RouterJobsClient;
  let tf: TerraformDir;

  beforeAll(async () => {
    work = scratchDir("rj-provider-moved-");
    svc = await startTestService({}, new SimulatedBackend({ seed: 13 }));
    ({ tf, client } = providerRun(terraform as string, work, {
      url: svc.url,
      token: TOKEN_A,
      ca: svc.service.ca ?? "",
      caFile: writeServiceCa(svc, work),
    }));
  });

  afterAll(async () => {
    await client?.close();
    tf?.remove();
    await svc?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** The app as a user writes it, synthesized by cdktf itself into the Terraform folder. */
  function synth(resource: "terraform_data" | "provider", sections: RouterSection[]): void {
    const outdir = mkdtempSync(join(tmpdir(), "rj-provider-moved-out-"));
    const app = new App({ outdir });
    const stack = new TerraformStack(app, "office");
    new LocalBackend(stack, { path: join(tf.dir, "terraform.tfstate") });
    new RouterConfig(stack, "edge-1", { routerId: ROUTER_A, resource, cli: CLI, sections });
    app.synth();
    tf.use(join(outdir, "stacks", "office", "cdk.tf.json"));
    rmSync(outdir, { recursive: true, force: true });
  }

  const jobs = async (): Promise<JobListItem[]> =>
    (await client.listJobs(ROUTER_A)).sort((a, b) => (a.seq_id ?? 0) - (b.seq_id ?? 0));
  const described = (job: JobListItem) => job.description.replace(/ \[rj:.*$/, "");

  it("deploys the stack with provisioners first, each section once", async () => {
    synth("terraform_data", SECTIONS);
    await tf.mustRun(["init", "-input=false"]);
    expect(await tf.mustRun(["apply", "-input=false", "-auto-approve"])).toContain("3 added");
    expect((await jobs()).map((job) => [described(job), job.status])).toEqual([
      ["identity", "completed"],
      ["dns servers", "completed"],
      ["ntp", "completed"],
    ]);
  });

  it("moves each completed job to the provider without running it again; a changed section runs once", async () => {
    const before = await jobs();
    const changed = SECTIONS.map((section) =>
      section.name === "ntp" ? { ...section, script: "/system ntp client set enabled=no" } : section,
    );
    synth("provider", changed);
    await tf.mustRun(["init", "-input=false"]);
    const plan = await tf.mustRun(["plan", "-input=false"]);
    expect(plan).toMatch(/# \(moved from terraform_data\.edge-1_identity_job_\w+\)/);
    // The unchanged sections adopt their scripts in place; the changed one is replaced (a new job).
    expect(plan).toContain("Plan: 1 to add, 2 to change, 1 to destroy.");
    expect(plan).toMatch(/routerjobs_script\.\S*ntp\S* must be replaced/);
    expect(await jobs()).toHaveLength(3);

    await tf.mustRun(["apply", "-input=false", "-auto-approve"]);
    const after = await jobs();
    expect(after.map((job) => [described(job), job.status])).toEqual([
      ["identity", "completed"],
      ["dns servers", "completed"],
      ["ntp", "completed"],
      ["ntp", "completed"],
    ]);
    const shown = (await tf.json(["show", "-json"])) as {
      values: { root_module: { resources: { type: string; values: Record<string, unknown> }[] } };
    };
    const resources = shown.values.root_module.resources;
    expect(resources.map((resource) => resource.type)).toEqual(Array(3).fill("routerjobs_script"));
    const jobIds = resources.map((resource) => resource.values.job_id).sort();
    expect(jobIds).toEqual([before[0]?.id, before[1]?.id, after[3]?.id].sort());
    expect(await tf.mustRun(["apply", "-input=false", "-auto-approve"])).toContain("No changes.");
    expect(await jobs()).toHaveLength(4);
  });

  it("runs the moved destroy script once on destroy", async () => {
    await tf.mustRun(["destroy", "-input=false", "-auto-approve"]);
    const destroyJobs = (await jobs()).filter((job) => described(job) === "destroy: dns servers");
    expect(destroyJobs.map((job) => job.status)).toEqual(["completed"]);
  });
});
