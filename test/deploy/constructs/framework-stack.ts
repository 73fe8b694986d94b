/**
 * The same small stack built with either framework (cdktf or its fork cdktn): what the framework tests
 * synthesize, compare and deploy.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CdkModule, FrameworkName } from "../../../src/deploy/constructs/framework.js";
import { RouterConfig, type RouterSection } from "../../../src/deploy/constructs/index.js";

export const FRAMEWORK_NAMES: readonly FrameworkName[] = ["cdktf", "cdktn"];

export async function loadFramework(name: FrameworkName): Promise<CdkModule> {
  return (await import(name)) as CdkModule;
}

export interface SmallStackOptions {
  readonly routerId: string;
  readonly cli?: string;
  readonly dns?: string;
  /** Where Terraform keeps the state (a LocalBackend); none given: no backend block. */
  readonly statePath?: string;
}

export const smallSections = (dns: string): RouterSection[] => [
  { name: "identity", script: '/system identity set name="edge a"', description: "identity" },
  {
    name: "dns",
    script: `/ip dns set servers=${dns}`,
    description: "dns servers",
    destroyScript: '/ip dns set servers=""',
  },
];

/** Synthesizes the stack with a full App (validations on) and returns its `cdk.tf.json` text. */
export function synthesizeSmallStack(cdk: CdkModule, options: SmallStackOptions): string {
  const outdir = mkdtempSync(join(tmpdir(), "rj-fw-out-"));
  try {
    const app = new cdk.App({ outdir });
    const stack = new cdk.TerraformStack(app, "office");
    if (options.statePath !== undefined) new cdk.LocalBackend(stack, { path: options.statePath });
    new RouterConfig(stack, "edge-a", {
      routerId: options.routerId,
      ...(options.cli === undefined ? {} : { cli: options.cli }),
      sections: smallSections(options.dns ?? "1.1.1.1"),
    });
    app.synth();
    return readFileSync(join(outdir, "stacks", "office", "cdk.tf.json"), "utf8");
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The part of `cdk.tf.json` Terraform acts on: everything but cdktf's `//` metadata (framework names, versions). */
export function terraformPart(text: string): Record<string, unknown> {
  const { "//": _metadata, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return rest;
}
