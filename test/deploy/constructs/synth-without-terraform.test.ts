import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, DataResource, TerraformStack } from "cdktf";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RouterConfig } from "../../../src/deploy/constructs/index.js";
import { ROUTER_A } from "./support.js";

describe("synth where Terraform is not installed", () => {
  let outdir: string;
  let savedPath: string | undefined;

  beforeEach(() => {
    outdir = mkdtempSync(join(tmpdir(), "rj-synth-"));
    savedPath = process.env.PATH;
    // An empty folder as the whole PATH: no terraform binary can be found.
    process.env.PATH = mkdtempSync(join(tmpdir(), "rj-empty-path-"));
  });

  afterEach(() => {
    rmSync(process.env.PATH as string, { recursive: true, force: true });
    process.env.PATH = savedPath;
    rmSync(outdir, { recursive: true, force: true });
  });

  it("synthesizes with the app's validations on", () => {
    // GIVEN a full app (validations are not skipped) with a RouterConfig
    const app = new App({ outdir });
    const stack = new TerraformStack(app, "office");
    new RouterConfig(stack, "edge-1", {
      routerId: ROUTER_A,
      sections: [{ name: "dns", script: "/ip dns set servers=1.1.1.1" }],
    });
    // WHEN synthesized
    app.synth();
    // THEN cdk.tf.json is written with the job's terraform_data
    const written = JSON.parse(readFileSync(join(outdir, "stacks", "office", "cdk.tf.json"), "utf8"));
    expect(Object.keys(written.resource.terraform_data)).toHaveLength(1);
  });

  it("would fail with cdktf's DataResource, which runs `terraform version` (why the constructs avoid it)", () => {
    // GIVEN the same app built on cdktf's DataResource
    const app = new App({ outdir });
    new DataResource(new TerraformStack(app, "office"), "data", { input: { a: "b" } });
    // THEN its version validation fails the synth: this guards the PATH setup of the test above
    expect(() => app.synth()).toThrow(/Could not determine version of terraform/);
  });
});
