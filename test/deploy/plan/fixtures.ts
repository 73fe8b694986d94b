/**
 * What the plan tests share: realistic live configurations (the simulator's corpus), a stack synthesized with
 * the real constructs, and a back end that counts what reached the routers.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { App, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { scratchDir } from "../../helpers/scratch.js";
import { smallOffice } from "../../routeros/simulator/corpus.js";

export const officeVlans = readFileSync(
  new URL("../../routeros/simulator/corpus/office-vlans-wireguard.rsc", import.meta.url),
  "utf8",
);
export const homeRouter = readFileSync(
  new URL("../../routeros/simulator/corpus/home-router.rsc", import.meta.url),
  "utf8",
);
export { smallOffice };

/** Counts the commands and scripts that reached each router: plan must send one read and run nothing. */
export class CountingBackend extends SimulatedBackend {
  readonly commands: string[] = [];
  readonly scripts: string[] = [];

  override async command(
    routerId: string,
    command: string,
    parameters?: string,
    options?: { signal?: AbortSignal },
  ) {
    this.commands.push(`${routerId} ${command}`);
    return super.command(routerId, command, parameters, options);
  }

  override async runScript(routerId: string, script: string, options?: { signal?: AbortSignal }) {
    this.scripts.push(`${routerId} ${script}`);
    return super.runScript(routerId, script, options);
  }

  reset(): void {
    this.commands.length = 0;
    this.scripts.length = 0;
  }
}

/** Synthesizes a stack named `office` and returns its folder (holding cdk.tf.json); gone after the test file. */
export function synthStack(build: (stack: Construct) => void): string {
  const outdir = scratchDir("rj-plan-out-");
  // Validations run `terraform version`; the plan tests must not need Terraform.
  const app = new App({ outdir, skipValidation: true });
  build(new TerraformStack(app, "office"));
  app.synth();
  return join(outdir, "stacks", "office");
}
