/** examples/single-router: what it synthesizes, that its scripts run on a router, and its cdktf entry. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TerraformStack, Testing } from "cdktf";
import { describe, expect, it } from "vitest";
import { buildSingleRouter } from "../../examples/single-router/router.js";
import { parseApplyJob } from "../../src/deploy/constructs/index.js";
import { SimulatedRouter } from "../../src/routeros/simulator/router.js";
import { provisioners, ROUTER_A } from "../deploy/constructs/support.js";
import { testingApp } from "../helpers/scratch.js";
import { jobsByPath, runApp, stackJson, TOKEN } from "./support.js";

function synthesize(): { text: string; config: ReturnType<typeof buildSingleRouter> } {
  const stack = new TerraformStack(testingApp(Testing), "single-router");
  const config = buildSingleRouter(stack, { routerId: ROUTER_A });
  return { text: Testing.synth(stack), config };
}

describe("examples/single-router", () => {
  it("declares three jobs for the router, chained in section order", () => {
    // GIVEN the example WHEN it is synthesized
    const jobs = jobsByPath(synthesize().text);
    // THEN there is one job per section, each waiting for the one before
    expect([...jobs.keys()]).toEqual(["edge-1/identity", "edge-1/lan-address", "edge-1/time-and-dns"]);
    const name = (path: string) => `terraform_data.${jobs.get(path)?.name}`;
    expect(jobs.get("edge-1/identity")?.resource.depends_on).toBeUndefined();
    expect(jobs.get("edge-1/lan-address")?.resource.depends_on).toEqual([name("edge-1/identity")]);
    expect(jobs.get("edge-1/time-and-dns")?.resource.depends_on).toEqual([name("edge-1/lan-address")]);
    for (const { resource } of jobs.values()) {
      const job = parseApplyJob(provisioners(resource)[0]?.environment.ROUTERJOBS_JOB ?? "");
      expect(job.router_id).toBe(ROUTER_A);
      expect(resource.triggers_replace).toEqual({ job_key: job.job_key });
    }
  });

  it("undoes only the LAN address on destroy", () => {
    const jobs = jobsByPath(synthesize().text);
    const withDestroy = [...jobs].filter(([, { resource }]) =>
      provisioners(resource).some((p) => p.when === "destroy"),
    );
    expect(withDestroy.map(([path]) => path)).toEqual(["edge-1/lan-address"]);
  });

  it("converges a fresh router, and running every script again changes nothing", async () => {
    // GIVEN a reset simulated router and the example's scripts
    const { config } = synthesize();
    const router = new SimulatedRouter({ name: "MikroTik" });
    // WHEN the scripts run in order, twice (a re-run after a taint or a restore)
    for (const pass of [1, 2]) {
      for (const section of config.sections) {
        const outcome = await router.runScript(section.job.script);
        expect(outcome, `${section.node.id} pass ${pass}`).toMatchObject({ ok: true });
      }
    }
    // THEN the router holds the declared configuration once
    const exported = (await router.runScript("/export")).output;
    expect(exported).toContain("name=edge-1");
    expect(exported.match(/address=192\.168\.88\.1\/24/g)).toHaveLength(1);
    expect(exported).toContain("servers=1.1.1.1,9.9.9.9");
  });

  it("main.ts synthesizes the stack for ROUTER_ID, with no token in any file", () => {
    // GIVEN a token in the environment, as on a deploy machine
    const run = runApp("examples/single-router/main.ts", {
      ROUTER_ID: ROUTER_A,
      ROUTERJOBS_TOKEN: TOKEN,
      ROUTERJOBS_CLI: "node /opt/routerjobs/bin/routerjobs.js",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const text = stackJson(run.outdir, "single-router");
    const jobs = jobsByPath(text);
    expect(jobs.size).toBe(3);
    for (const { resource } of jobs.values()) {
      expect(provisioners(resource)[0]?.command).toBe("node /opt/routerjobs/bin/routerjobs.js apply");
    }
    // THEN no synthesized file holds the token
    for (const file of readdirSync(run.outdir, { recursive: true, withFileTypes: true })) {
      if (file.isFile()) expect(readFileSync(join(file.parentPath, file.name), "utf8")).not.toContain(TOKEN);
    }
  });

  it("main.ts refuses to run without ROUTER_ID, and says which variable", () => {
    const run = runApp("examples/single-router/main.ts", {});
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("ROUTER_ID is not set");
  });

  it("main.ts passes a malformed ROUTER_ID to the constructs' validation, which names it", () => {
    const run = runApp("examples/single-router/main.ts", { ROUTER_ID: "edge-1" });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/routerId must be a lowercase UUID \(got "edge-1"\)/);
  });
});
