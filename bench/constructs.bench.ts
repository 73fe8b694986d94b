/**
 * Synth cost of the constructs for a fleet: 4 sections per router, each validated (limits, RouterOS parse),
 * hashed and written with its provisioners. Baseline: the same number of terraform_data resources with
 * provisioners of the same size built by hand, without validation or hashing, so the ratio is the constructs'
 * own overhead over cdktf's. Also checks that the cost grows linearly with the fleet.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBackend, TerraformStack, Testing } from "cdktf";
import { Fleet, helpers as ros, TerraformData } from "../src/deploy/constructs/index.js";
import type { BenchReport } from "./harness.js";
import { round } from "./harness.js";

/**
 * One outdir for every app of the run: without one, each `Testing.app()` leaves a `cdktf.outdir.*` folder
 * behind (synth writes nothing there).
 */
let outdir = "";
const app = () => Testing.app({ outdir });

const routers = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    name: `edge-${i}`,
    routerId: `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`,
    lan: `10.${i >> 8}.${i & 255}.1/24`,
  }));

function fleetSynth(count: number): number {
  const stack = new TerraformStack(app(), "office");
  new LocalBackend(stack, { path: "/tmp/rj-bench.tfstate" });
  new Fleet(stack, "branches", {
    routers: routers(count),
    sections: (router) => [
      { name: "identity", script: ros.identity(router.name) },
      {
        name: "dns",
        script: [ros.dnsServers(["1.1.1.1", "9.9.9.9"]), ros.ntpClient({ servers: ["pool.ntp.org"] })],
      },
      {
        name: "lan",
        script: ros.ipAddress({ address: router.lan, interface: "bridge1", comment: "managed: lan" }),
      },
      {
        name: "firewall",
        script: ros.firewallFilter({
          chain: "input",
          action: "drop",
          "in-interface-list": "WAN",
          comment: "managed: wan",
        }),
        destroyScript: ros.removeFirewallRule("filter", "managed: wan"),
      },
    ],
  });
  return Testing.synth(stack).length;
}

/** A job JSON of the size the constructs write (about 450 characters). */
const JOB_TEXT = JSON.stringify({
  version: 1,
  phase: "create",
  resource: "office/branches/edge-0/lan",
  script: "x".repeat(300),
});

function baselineSynth(count: number): number {
  const stack = new TerraformStack(app(), "office");
  new LocalBackend(stack, { path: "/tmp/rj-bench.tfstate" });
  for (let i = 0; i < count * 4; i++) {
    new TerraformData(stack, `r${i}`, {
      triggersReplace: { job_key: `${i}` },
      provisioners: [
        {
          type: "local-exec",
          command: "routerjobs apply",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a Terraform expression, as the constructs write it
          environment: { ROUTERJOBS_JOB: `${JOB_TEXT}${i}`, ROUTERJOBS_INSTANCE_ID: "${self.id}" },
        },
      ],
    });
  }
  return Testing.synth(stack).length;
}

function timeMs(fn: () => unknown, repeats = 3): number {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return Math.min(...times);
}

export async function run(): Promise<BenchReport> {
  outdir = mkdtempSync(join(tmpdir(), "rj-bench-constructs-"));
  try {
    return measure();
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

function measure(): BenchReport {
  fleetSynth(10);
  baselineSynth(10);
  const fleet200 = timeMs(() => fleetSynth(200));
  const baseline200 = timeMs(() => baselineSynth(200));
  const fleet400 = timeMs(() => fleetSynth(400));
  const baseline400 = timeMs(() => baselineSynth(400));
  const ratio = fleet200 / baseline200;
  const scaling = fleet400 / fleet200;
  const baselineScaling = baseline400 / baseline200;
  return {
    title: "constructs: synth of a 200-router fleet (800 jobs) vs hand-written terraform_data",
    metrics: {
      fleet200Ms: round(fleet200),
      baseline200Ms: round(baseline200),
      ratio: round(ratio),
      fleet400Ms: round(fleet400),
      scaling400over200: round(scaling),
      baselineScaling400over200: round(baselineScaling),
      perJobMs: round(fleet200 / 800, 3),
    },
    lines: [
      `fleet 200 routers: ${round(fleet200)} ms (${round(fleet200 / 800, 3)} ms per job)`,
      `baseline 800 terraform_data: ${round(baseline200)} ms -> ratio ${round(ratio)}x`,
      `fleet 400 routers: ${round(fleet400)} ms -> scaling ${round(scaling)}x for 2x routers (2 = linear)`,
      `baseline 1600 terraform_data: ${round(baseline400)} ms -> scaling ${round(baselineScaling)}x (cdktf alone)`,
    ],
  };
}
