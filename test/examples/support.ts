/** Shared by the example tests: running an example's main.ts, finding terraform, reading synthesized stacks. */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resourcesOf, type SynthResource } from "../deploy/constructs/support.js";
import { scratchDir } from "../helpers/scratch.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A token as the service issues them; a test sets it in the environment and looks for it in every output. */
export const TOKEN = `0b7c4c3e-1f2a-4b5c-9d8e-7f6a5b4c3d2e:1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d:${"Q7".repeat(31)}`;

export interface AppRun {
  readonly status: number | null;
  readonly stderr: string;
  /** The folder `cdktf.out` would be. */
  readonly outdir: string;
}

/** Runs an example's cdktf entry as `cdktf synth` does (`npx tsx main.ts`, CDKTF_OUTDIR set). */
export function runApp(entry: string, env: Record<string, string>): AppRun {
  const outdir = scratchDir("rj-example-out-");
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("ROUTERJOBS_") && name !== "ROUTER_ID"),
  );
  const result = spawnSync(process.execPath, ["--import", "tsx", entry], {
    cwd: ROOT,
    env: { ...clean, CDKTF_OUTDIR: outdir, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr, outdir };
}

/** The stack JSON `cdktf synth` wrote for `stack`. */
export function stackJson(outdir: string, stack: string): string {
  return readFileSync(join(outdir, "stacks", stack, "cdk.tf.json"), "utf8");
}

/** terraform_data resources keyed by construct path (`offices/office-1/dhcp`), not by Terraform name. */
export function jobsByPath(text: string): Map<string, { name: string; resource: SynthResource }> {
  const byPath = new Map<string, { name: string; resource: SynthResource }>();
  for (const [name, resource] of Object.entries(resourcesOf(text))) {
    // A rollout's wave gates carry no job.
    if (/_rollout-wave-\d+_gate_/.test(name)) continue;
    const create = resource.provisioner?.[0]?.["local-exec"].environment.ROUTERJOBS_JOB;
    if (create === undefined) throw new Error(`${name} has no create provisioner`);
    const path = (JSON.parse(create) as { resource: string }).resource;
    byPath.set(path.split("/").slice(1).join("/"), { name, resource });
  }
  return byPath;
}

export { terraformOrSkip } from "../helpers/terraform.js";
