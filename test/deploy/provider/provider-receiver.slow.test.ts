/**
 * The provider confirming through the receiver under the real Terraform: three scripts of one router applied
 * by a plain `terraform apply` against the local stack (service, simulated router, receiver), with
 * wait_for = "receiver" and the twin off. The service sees one job-list read for the router and one
 * submission a job: no poll, the receiver's notifications confirm every job.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../../src/client/version.js";
import { type LocalStack, PACKAGE_ROOT, startLocalStack } from "../../../src/demo/local-stack.js";
import { installProvider } from "../../../src/deploy/provider/install.js";
import { TerraformDir, terraformOrSkip } from "../../helpers/terraform.js";

const terraform = terraformOrSkip("the provider confirming through the receiver");
const ROUTER = randomUUID();
const SCRIPTS = 3;

describe.skipIf(terraform === undefined)("the provider with a receiver", () => {
  let dir: string;
  let stack: LocalStack;
  let tf: TerraformDir;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "rj-provider-receiver-"));
    stack = await startLocalStack({ dir, routers: [{ id: ROUTER, name: "edge" }] });
    const installed = await installProvider({
      dir: join(dir, "mirror"),
      version: VERSION,
      providerMain: join(PACKAGE_ROOT, "dist", "bundle", "provider.js"),
    });
    writeFileSync(join(dir, "cli.tfrc"), installed.cliConfig);
    tf = new TerraformDir(terraform as string, {
      ...stack.env,
      HOME: join(dir, "home"),
      TF_CLI_CONFIG_FILE: join(dir, "cli.tfrc"),
    });
    const resources = Array.from(
      { length: SCRIPTS },
      (_, index) =>
        `resource "routerjobs_script" "s${index}" {\n  router_id   = "${ROUTER}"\n  description = "step ${index}"\n  script      = "/system identity set name=edge-${index}"\n}\n`,
    );
    writeFileSync(
      join(tf.dir, "main.tf"),
      `${installed.requiredProviders}provider "routerjobs" {\n  wait_for  = "receiver"\n  plan_twin = false\n}\n${resources.join("")}`,
    );
    await tf.mustRun(["init", "-input=false"]);
  });

  afterAll(async () => {
    tf?.remove();
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const admitted = () => [...stack.service.app.admittedRequests.values()].reduce((a, b) => a + b, 0);

  it("reads the router's list once and submits each job, confirmed by notifications alone", async () => {
    const before = admitted();
    const apply = await tf.mustRun(["apply", "-input=false", "-auto-approve", "-parallelism=10"]);
    expect(apply).toContain(`${SCRIPTS} added`);
    expect(admitted() - before).toBe(1 + SCRIPTS);
    const shown = (await tf.json(["show", "-json"])) as {
      values: { root_module: { resources: { values: Record<string, unknown> }[] } };
    };
    expect(shown.values.root_module.resources.map((resource) => resource.values.status)).toEqual(
      Array(SCRIPTS).fill("completed"),
    );
  });
});
