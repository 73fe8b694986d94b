/**
 * examples/cdktn-single-router: the single-router stack as a CDK Terrain app. Its entry run as cdktf.json says
 * (`npx tsx main.ts`), and, where cdktn-cli can run (Node >= 22.19, CI installs it and names it in
 * ROUTERJOBS_TEST_CDKTN_CLI), through `cdktn synth` itself.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTER_A } from "../deploy/constructs/support.js";
import { jobsByPath, ROOT, runApp, stackJson } from "./support.js";

const EXAMPLE = join(ROOT, "examples", "cdktn-single-router");
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const cliCanRun = major > 22 || (major === 22 && minor >= 19);
const cdktnCli = process.env.ROUTERJOBS_TEST_CDKTN_CLI;

/** The Terraform part of a stack (cdktf's `//` metadata names the framework version, so it differs). */
const terraformPart = (text: string) => {
  const { "//": _metadata, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return rest;
};

describe("examples/cdktn-single-router", () => {
  it("main.ts synthesizes the same Terraform configuration as the cdktf example", () => {
    // GIVEN both examples' entries, run as their cdktf.json says
    const cdktn = runApp("examples/cdktn-single-router/main.ts", { ROUTER_ID: ROUTER_A });
    const cdktf = runApp("examples/single-router/main.ts", { ROUTER_ID: ROUTER_A });
    // THEN both succeed quietly and write the same three jobs; the metadata names cdktn 0.24
    expect(cdktn.stderr).toBe("");
    expect(cdktn.status).toBe(0);
    const text = stackJson(cdktn.outdir, "single-router");
    expect(jobsByPath(text).size).toBe(3);
    expect(terraformPart(text)).toEqual(terraformPart(stackJson(cdktf.outdir, "single-router")));
    expect(JSON.parse(text)["//"].metadata.version).toMatch(/^0\.24\./);
    for (const run of [cdktn, cdktf]) rmSync(run.outdir, { recursive: true, force: true });
  });

  it("main.ts refuses to run without ROUTER_ID", () => {
    const run = runApp("examples/cdktn-single-router/main.ts", {});
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("ROUTER_ID is not set");
  });

  // cdktn-cli refuses Node < 22.19: the test exists only where it can run; there, CI must provide the CLI.
  if (!cliCanRun) {
    console.warn(`cdktn synth not tried: cdktn-cli needs Node >= 22.19, this is ${process.versions.node}`);
  } else if (cdktnCli === undefined && process.env.CI !== "true") {
    console.warn("cdktn synth not tried: ROUTERJOBS_TEST_CDKTN_CLI does not name a cdktn-cli binary");
  } else {
    it("`cdktn synth` synthesizes it in the example's folder", () => {
      if (cdktnCli === undefined)
        throw new Error("CI=true on Node >= 22.19 requires ROUTERJOBS_TEST_CDKTN_CLI");
      const outdir = mkdtempSync(join(tmpdir(), "rj-cdktn-synth-"));
      try {
        const result = spawnSync(cdktnCli, ["synth", "--output", outdir], {
          cwd: EXAMPLE,
          env: { ...process.env, ROUTER_ID: ROUTER_A, CHECKPOINT_DISABLE: "1", CI: "true" },
          encoding: "utf8",
          timeout: 120_000,
        });
        expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
        const text = readFileSync(join(outdir, "stacks", "single-router", "cdk.tf.json"), "utf8");
        expect(jobsByPath(text).size).toBe(3);
      } finally {
        rmSync(outdir, { recursive: true, force: true });
      }
    });
  }
});
