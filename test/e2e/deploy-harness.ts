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
import { RouterConfig, type RouterSection } from "../../src/deploy/constructs/index.js";
import { ROUTER_A, ROUTER_A2 } from "../service/harness.js";

const ROOT = join(import.meta.dirname, "..", "..");
export const BIN = join(ROOT, "bin", "routerjobs.js");
const CLI = `${process.execPath} ${BIN}`;

/** The scripts the office stack declares besides router A's dns (the runs at the routers are counted by them). */
export const A2_IDENTITY = '/system identity set name="edge a2"';
export const A2_EXTRA = "/ip dns set allow-remote-requests=yes";
export const A2_EXTRA_DESTROY = "/ip dns set allow-remote-requests=no";
export const DNS_DESTROY = '/ip dns set servers=""';

/** What one configuration declares: router A's dns script (slow: router A can be held offline), A2's sections. */
export interface Layout {
  readonly dns: string;
  readonly dnsDestroy?: boolean;
  /** How long router A's apply waits for its job. @default the constructs' 10m */
  readonly dnsTimeout?: string;
  readonly a2Extra?: boolean;
  /** The two routers' ids. @default ROUTER_A and ROUTER_A2 of the test service's seed */
  readonly routers?: { readonly a: string; readonly a2: string };
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
    ...(layout.dnsDestroy ? { destroyScript: DNS_DESTROY } : {}),
    ...(layout.dnsTimeout ? { timeout: layout.dnsTimeout } : {}),
  };
  new RouterConfig(stack, "edge-a", { routerId: layout.routers?.a ?? ROUTER_A, cli: CLI, sections: [dns] });
  const a2: RouterSection[] = [
    { name: "identity", script: A2_IDENTITY, expressExecute: true },
    ...(layout.a2Extra
      ? [
          {
            name: "extra",
            script: A2_EXTRA,
            destroyScript: A2_EXTRA_DESTROY,
            expressExecute: true,
          },
        ]
      : []),
  ];
  new RouterConfig(stack, "edge-a2", { routerId: layout.routers?.a2 ?? ROUTER_A2, cli: CLI, sections: a2 });
  app.synth();
  const target = join(dir, "cdk.tf.json");
  rmSync(target, { force: true });
  writeFileSync(target, readFileSync(join(outdir, "stacks", "office", "cdk.tf.json")));
  rmSync(outdir, { recursive: true, force: true });
}

/** `routerjobs deploy --dir dir [-- terraformArgs]` in its own process group, collecting what it prints. */
export function startDeployTree(
  dir: string,
  env: NodeJS.ProcessEnv,
  terraformArgs: readonly string[] = [],
): { child: ChildProcess; done: Promise<{ code: number | null; output: string }> } {
  const args = terraformArgs.length > 0 ? ["--", ...terraformArgs] : [];
  const child = spawn(process.execPath, [BIN, "deploy", "--dir", dir, ...args], {
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
