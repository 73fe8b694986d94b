/**
 * routerjobs/constructs in a cdktf app and in a cdktn app, from one source: the framework is the stack's own
 * (src/deploy/constructs/framework.ts), never a copy routerjobs brings.
 */
import { Construct } from "constructs";
import { describe, expect, it } from "vitest";
import {
  ConstructValidationError,
  RouterScript,
  TerraformData,
} from "../../../src/deploy/constructs/index.js";
import { testingApp } from "../../helpers/scratch.js";
import { FRAMEWORK_NAMES, loadFramework, synthesizeSmallStack, terraformPart } from "./framework-stack.js";
import { ROUTER_A } from "./support.js";

// Top-level keys and `terraform` settings that both Terraform and OpenTofu read. Terraform-only features
// (a `cloud` block, ephemeral resources) would make the JSON unusable with OpenTofu.
const PORTABLE_TOP_LEVEL = ["terraform", "resource", "provider", "output", "variable", "locals"];
const PORTABLE_TERRAFORM_SETTINGS = ["required_providers", "backend", "required_version"];

describe("one source for both frameworks", () => {
  it.each(FRAMEWORK_NAMES)("synthesizes the small stack in a %s app, with validations on", async (name) => {
    // GIVEN an app of the framework WHEN the stack is synthesized
    const json = JSON.parse(synthesizeSmallStack(await loadFramework(name), { routerId: ROUTER_A }));
    // THEN it holds both jobs, and the framework version in its metadata is the app's (cdktf 0.21, cdktn 0.24)
    expect(Object.keys(json.resource.terraform_data)).toHaveLength(2);
    expect(json["//"].metadata.version).toMatch(name === "cdktn" ? /^0\.24\./ : /^0\.21\./);
  });

  it("writes the same Terraform configuration under cdktf and cdktn", async () => {
    // GIVEN the same stack in both frameworks WHEN synthesized
    const [cdktf, cdktn] = [await loadFramework("cdktf"), await loadFramework("cdktn")];
    const a = terraformPart(synthesizeSmallStack(cdktf, { routerId: ROUTER_A }));
    const b = terraformPart(synthesizeSmallStack(cdktn, { routerId: ROUTER_A }));
    // THEN everything Terraform reads is identical
    expect(b).toEqual(a);
  });

  it.each(FRAMEWORK_NAMES)(
    "keeps the %s JSON free of Terraform-only features (OpenTofu reads it too)",
    async (name) => {
      const cdk = await loadFramework(name);
      const json = terraformPart(
        synthesizeSmallStack(cdk, { routerId: ROUTER_A, statePath: "/tmp/x.tfstate" }),
      );
      expect(Object.keys(json).filter((key) => !PORTABLE_TOP_LEVEL.includes(key))).toEqual([]);
      const settings = Object.keys(json.terraform as object);
      expect(settings.filter((key) => !PORTABLE_TERRAFORM_SETTINGS.includes(key))).toEqual([]);
      expect(Object.keys(json.resource as object)).toEqual(["terraform_data"]);
    },
  );

  it("builds TerraformData with the framework of the stack it is created in", async () => {
    // GIVEN one stack per framework
    const [cdktf, cdktn] = [await loadFramework("cdktf"), await loadFramework("cdktn")];
    const stackF = new cdktf.TerraformStack(testingApp(cdktf.Testing), "f");
    const stackN = new cdktn.TerraformStack(testingApp(cdktn.Testing), "n");
    // WHEN TerraformData is built in each
    const inF = new TerraformData(stackF, "data", { input: { a: "1" } });
    const inN = new TerraformData(stackN, "data", { input: { a: "1" } });
    // THEN each is the stack's own framework's resource, and never the other's
    expect(inF).toBeInstanceOf(cdktf.TerraformResource);
    expect(inF).not.toBeInstanceOf(cdktn.TerraformResource);
    expect(inN).toBeInstanceOf(cdktn.TerraformResource);
    expect(inN).not.toBeInstanceOf(cdktf.TerraformResource);
    expect(TerraformData.tfResourceType).toBe("terraform_data");
  });
});

describe("null_resource and the frameworks", () => {
  const script = {
    routerId: ROUTER_A,
    script: "/ip dns set servers=1.1.1.1",
    resource: "null_resource" as const,
  };

  it("works in a cdktf app, which has @cdktf/provider-null", async () => {
    const cdk = await loadFramework("cdktf");
    const stack = new cdk.TerraformStack(testingApp(cdk.Testing), "office");
    new RouterScript(stack, "dns", script);
    const json = JSON.parse(cdk.Testing.synth(stack));
    expect(Object.keys(json.resource.null_resource)).toHaveLength(1);
    expect(Object.keys(json.provider)).toEqual(["null"]);
  });

  it("is refused in a cdktn app with the reason and the way out, naming the construct", async () => {
    // GIVEN a cdktn stack WHEN a script asks for null_resource
    const cdk = await loadFramework("cdktn");
    const build = () =>
      new RouterScript(new cdk.TerraformStack(testingApp(cdk.Testing), "office"), "dns", script);
    // THEN a validation error says cdktn has no null provider bindings and names terraform_data
    expect(build).toThrow(ConstructValidationError);
    expect(build).toThrow(
      /office\/dns: resource "null_resource" needs null provider bindings, and cdktn has none/,
    );
    expect(build).toThrow(/use the default "terraform_data"/);
  });
});

describe("a stack of a framework copy routerjobs cannot load", () => {
  it("is refused with a message that names the construct and the copies found, not a crash in synth", () => {
    // GIVEN a stack-like construct that no loadable cdktf or cdktn copy made (as a second, unreachable copy)
    class ForeignStack extends Construct {
      constructor(scope: Construct, id: string) {
        super(scope, id);
        Object.defineProperty(this, Symbol.for("cdktf/TerraformStack"), { value: true });
      }
    }
    const foreignStack = () => new ForeignStack(new Construct(undefined as never, ""), "office");
    // WHEN a construct is created in it THEN the error says why and what to do
    const build = () =>
      new RouterScript(foreignStack(), "dns", { routerId: ROUTER_A, script: "/ip dns set servers=1.1.1.1" });
    expect(build).toThrow(ConstructValidationError);
    expect(build).toThrow(
      /office\/dns: scope belongs to a CDK stack whose framework copy routerjobs cannot load/,
    );
    expect(build).toThrow(/node_modules\/cdktn\/.*install cdktf or cdktn once, in the app/);
  });
});

describe("a construct outside any stack", () => {
  it("is refused with a message that names the construct path", async () => {
    const cdk = await loadFramework("cdktn");
    const app = testingApp(cdk.Testing);
    const build = () =>
      new RouterScript(app, "loose", { routerId: ROUTER_A, script: "/ip dns set servers=1.1.1.1" });
    expect(build).toThrow(/loose: scope is not inside a TerraformStack/);
  });
});
