/**
 * The whole path for real: a cdktf stack synthesized with the constructs, the real `terraform` binary, the real
 * `routerjobs apply` (built CLI) in each provisioner, and the service on loopback with TLS and simulated routers.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripMarker } from "../../src/contract/attempt-marker.js";
import { RouterConfig, type RouterSection } from "../../src/deploy/constructs/index.js";
import type { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { processes } from "../helpers/processes.js";
import { TerraformDir, terraformOrSkip } from "../helpers/terraform.js";
import { waitFor } from "../helpers/wait-for.js";
import { ROUTER_A, ROUTER_A2, startTestService, type TestService, TOKEN_A } from "../service/harness.js";

const terraform = terraformOrSkip("the end-to-end deploy with terraform");
const ROOT = join(import.meta.dirname, "..", "..");
const CLI = `${process.execPath} ${join(ROOT, "bin", "routerjobs.js")}`;
const SECRET = TOKEN_A.split(":")[2] as string;

interface Layout {
  readonly dns: string;
  readonly a2Name: string;
}

describe.skipIf(terraform === undefined)("deploying a stack with terraform against the service", () => {
  let service: TestService;
  let tf: TerraformDir;
  let work: string;

  beforeAll(async () => {
    service = await startTestService({ rateLimit: { count: 600, windowMs: 1000 } });
    work = mkdtempSync(join(tmpdir(), "rj-e2e-"));
    const caFile = join(work, "ca.pem");
    writeFileSync(caFile, service.service.ca as string);
    tf = new TerraformDir(terraform as string, {
      ROUTERJOBS_URL: service.url,
      ROUTERJOBS_TOKEN: TOKEN_A,
      ROUTERJOBS_CA_FILE: caFile,
      ROUTERJOBS_STATE_DIR: join(work, "state"),
      ROUTERJOBS_RATE_LIMIT: "600/1s",
    });
  });
  afterAll(async () => {
    tf?.remove();
    rmSync(work, { recursive: true, force: true });
    await service?.close();
  });

  const backend = () => service.backend as SimulatedBackend;
  const sectionsA = (layout: Layout, dnsScript = `/ip dns set servers=${layout.dns}`): RouterSection[] => [
    { name: "identity", script: '/system identity set name="edge a"', description: "identity" },
    { name: "dns", script: dnsScript, description: "dns servers", destroyScript: '/ip dns set servers=""' },
  ];

  function synthesize(layout: Layout, dnsScript?: string): void {
    const outdir = mkdtempSync(join(tmpdir(), "rj-out-"));
    const app = new App({ outdir });
    const stack = new TerraformStack(app, "office");
    new LocalBackend(stack, { path: join(tf.dir, "terraform.tfstate") });
    new RouterConfig(stack, "edge-a", {
      routerId: ROUTER_A,
      cli: CLI,
      sections: sectionsA(layout, dnsScript),
    });
    new RouterConfig(stack, "edge-a2", {
      routerId: ROUTER_A2,
      cli: CLI,
      sections: [
        { name: "identity", script: `/system identity set name="${layout.a2Name}"`, description: "identity" },
      ],
    });
    app.synth();
    tf.use(join(outdir, "stacks", "office", "cdk.tf.json"));
    rmSync(outdir, { recursive: true, force: true });
  }

  const jobCount = async (routerId: string) => (await service.jobs(routerId)).length;
  /** The first record of a print through the synchronous endpoint, as a user would read it back. */
  const print = async (routerId: string, command: string) =>
    (await service.call("POST", `/api/synchronous/${routerId}`, { body: { command } })).body.data[0];

  it("deploys every section once, in order per router, with backups, and no token in config, plan or state", async () => {
    // GIVEN two routers' configuration
    synthesize({ dns: "1.1.1.1", a2Name: "edge a2" });
    await tf.mustRun(["init", "-input=false"]);
    // WHEN planned and applied
    await tf.mustRun(["plan", "-input=false", "-out=plan.bin"]);
    const plan = JSON.stringify(await tf.json(["show", "-json", "plan.bin"]));
    const output = await tf.mustRun(["apply", "-auto-approve", "-input=false", "plan.bin"]);
    // THEN every job completed on its router, with a backup first
    const jobsA = await service.jobs(ROUTER_A);
    expect(jobsA.map((job: { status: string }) => job.status)).toEqual(["completed", "completed"]);
    expect(jobsA.every((job: { make_backup: boolean }) => job.make_backup)).toBe(true);
    expect(await jobCount(ROUTER_A2)).toBe(1);
    // AND in declaration order: identity ran before dns
    expect(jobsA.map((job: { description: string }) => stripMarker(job.description))).toEqual([
      "dns servers",
      "identity",
    ]);
    // AND the routers hold the configuration
    expect((await print(ROUTER_A, "/ip/dns/print")).servers).toBe("1.1.1.1");
    expect((await print(ROUTER_A, "/system/identity/print")).name).toBe("edge a");
    // AND terraform showed the provisioners' progress
    expect(output).toMatch(/routerjobs: office\/edge-a\/dns: completed/);
    // AND the token is nowhere in what terraform keeps
    for (const text of [
      readFileSync(join(tf.dir, "cdk.tf.json"), "utf8"),
      plan,
      readFileSync(join(tf.dir, "terraform.tfstate"), "utf8"),
      output,
    ]) {
      expect(text).not.toContain(SECRET);
    }
  });

  it("re-runs only the router whose configuration changed", async () => {
    const before = { a: await jobCount(ROUTER_A), a2: await jobCount(ROUTER_A2) };
    synthesize({ dns: "1.1.1.1", a2Name: "edge a2 renamed" });
    await tf.mustRun(["apply", "-auto-approve", "-input=false"]);
    expect(await jobCount(ROUTER_A)).toBe(before.a);
    expect(await jobCount(ROUTER_A2)).toBe(before.a2 + 1);
    expect((await print(ROUTER_A2, "/system/identity/print")).name).toBe("edge a2 renamed");
  });

  it("fails the apply with the router's message, taints the resource and keeps the backup", async () => {
    const backups = backend().router(ROUTER_A).backupNames.length;
    synthesize(
      { dns: "1.1.1.1", a2Name: "edge a2 renamed" },
      "/ip address add address=10.7.7.1/24 interface=nope",
    );
    const failed = await tf.run(["apply", "-auto-approve", "-input=false"]);
    expect(failed.status).not.toBe(0);
    expect(failed.output).toContain("input does not match any value of interface");
    expect(failed.output).toMatch(/line 1/);
    const state = (await tf.json(["show", "-json"])) as {
      values: { root_module: { resources: { address: string; tainted?: boolean }[] } };
    };
    const tainted = state.values.root_module.resources.filter(
      (resource: { tainted?: boolean }) => resource.tainted,
    );
    expect(tainted.map((resource: { address: string }) => resource.address)).toEqual([
      expect.stringContaining("edge-a_dns"),
    ]);
    // The replacement ran the old destroy job, then the failing job: each took a backup first.
    expect(backend().router(ROUTER_A).backupNames.length).toBe(backups + 2);
    expect(failed.output).not.toContain(SECRET);
  });

  it("after terraform is killed mid-wait, the next apply waits for the same job instead of submitting it again", async () => {
    // GIVEN the tainted dns section fixed, and router A offline so its job waits
    synthesize({ dns: "9.9.9.9", a2Name: "edge a2 renamed" });
    backend().setOnline(ROUTER_A, false);
    const before = await jobCount(ROUTER_A);
    const first = tf.start(["apply", "-auto-approve", "-input=false"]);
    try {
      // WHEN the job is submitted and terraform is killed while apply waits for it
      await waitFor(async () => (await jobCount(ROUTER_A)) > before, {
        what: "the provisioner to submit its job",
        timeoutMs: 60_000,
        intervalMs: 100,
        detail: () => `terraform said:\n${first.output()}`,
      });
      // (while it waits, every user of the machine can read the command lines of terraform, the provisioner's
      // shell and routerjobs apply: the token is in none of them)
      const lines = processes().map(({ args }) => args);
      expect(lines.filter((args) => args.includes("routerjobs.js apply")).length).toBeGreaterThan(0);
      expect(lines.filter((args) => args.includes(SECRET))).toEqual([]);
    } finally {
      first.kill();
      await first.done;
    }
    backend().setOnline(ROUTER_A, true);
    // AND terraform applies again
    const second = await tf.mustRun(["apply", "-auto-approve", "-input=false"]);
    expect(second).toMatch(
      /office\/edge-a\/dns: this change is already job #\d+ \((pending|running|completed); .*\): not submitting it again/,
    );
    // THEN exactly one job ran for the change, and the router holds it
    const jobs = await service.jobs(ROUTER_A);
    expect(jobs.length).toBe(before + 1);
    expect(jobs[0].status).toBe("completed");
    expect((await print(ROUTER_A, "/ip/dns/print")).servers).toBe("9.9.9.9");
  });

  it("runs the destroy scripts at destroy", async () => {
    const before = await jobCount(ROUTER_A);
    await tf.mustRun(["destroy", "-auto-approve", "-input=false"]);
    const jobs = await service.jobs(ROUTER_A);
    expect(jobs.length).toBe(before + 1);
    expect(jobs[0]).toMatchObject({ status: "completed" });
    expect(stripMarker(jobs[0].description)).toBe("dns servers");
    // The router prints no `servers` once the list is empty.
    expect((await print(ROUTER_A, "/ip/dns/print")).servers ?? "").toBe("");
  });
});
