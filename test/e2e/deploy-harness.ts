/**
 * What the exactly-once tests share: the office stack they deploy (router A's dns change, router A2's sections),
 * synthesized with the real cdktf into a stack folder, and `routerjobs deploy` started in its own process group
 * so that one SIGKILL takes deploy, terraform and every apply.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { RouterConfig, type RouterSection } from "../../src/constructs/index.js";
import { ROUTER_A, ROUTER_A2 } from "../service/harness.js";

const ROOT = join(import.meta.dirname, "..", "..");
export const BIN = join(ROOT, "bin", "routerjobs.js");
const CLI = `${process.execPath} ${BIN}`;

/** What one configuration declares: router A's dns script (slow: router A can be held offline), A2's sections. */
export interface Layout {
  readonly dns: string;
  readonly dnsDestroy?: boolean;
  readonly a2Extra?: boolean;
}

/** Synthesizes the office stack into `dir/cdk.tf.json`, its state in `dir/terraform.tfstate`. */
export function synthesizeOffice(dir: string, layout: Layout): void {
  const outdir = mkdtempSync(join(tmpdir(), "rj-once-out-"));
  const app = new App({ outdir });
  const stack = new TerraformStack(app, "office");
  new LocalBackend(stack, { path: join(dir, "terraform.tfstate") });
  const dns: RouterSection = {
    name: "dns",
    script: layout.dns,
    description: "dns servers",
    expressExecute: true,
    ...(layout.dnsDestroy ? { destroyScript: '/ip dns set servers=""' } : {}),
  };
  new RouterConfig(stack, "edge-a", { routerId: ROUTER_A, cli: CLI, sections: [dns] });
  const a2: RouterSection[] = [
    { name: "identity", script: '/system identity set name="edge a2"', expressExecute: true },
    ...(layout.a2Extra
      ? [
          {
            name: "extra",
            script: "/ip dns set allow-remote-requests=yes",
            destroyScript: "/ip dns set allow-remote-requests=no",
            expressExecute: true,
          },
        ]
      : []),
  ];
  new RouterConfig(stack, "edge-a2", { routerId: ROUTER_A2, cli: CLI, sections: a2 });
  app.synth();
  const target = join(dir, "cdk.tf.json");
  rmSync(target, { force: true });
  writeFileSync(target, readFileSync(join(outdir, "stacks", "office", "cdk.tf.json")));
  rmSync(outdir, { recursive: true, force: true });
}

/** `routerjobs deploy --dir dir` in its own process group, collecting what it prints. */
export function startDeployTree(
  dir: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; done: Promise<{ code: number | null; output: string }> } {
  const child = spawn(process.execPath, [BIN, "deploy", "--dir", dir], {
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return {
    child,
    done: new Promise((resolve) => child.on("close", (code) => resolve({ code, output }))),
  };
}

/** SIGKILL of the whole process group: deploy, terraform, its provisioners and their applies. */
export const killTree = (child: ChildProcess) => process.kill(-(child.pid as number), "SIGKILL");
