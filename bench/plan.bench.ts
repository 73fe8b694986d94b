/**
 * What `routerjobs plan` costs after the reads: per router, loading its export into a fresh twin, running its
 * declared jobs, exporting again and diffing, for a fleet of 100 routers with realistic configurations (the
 * office-with-VLANs and home-router corpora, alternating). The read itself (one /export per router) is the
 * service's and the rate budget's cost, not measured here. Figures: ms per router (p50, p95) and the fleet's total.
 */
import { readFileSync } from "node:fs";
import { diffExports } from "../src/deploy/plan/export-diff.js";
import { runOnTwin } from "../src/deploy/plan/twin.js";
import { SimulatedRouter } from "../src/routeros/simulator/router.js";
import { type BenchReport, percentile, round } from "./harness.js";

const FLEET = 100;

async function liveExport(file: string, name: string): Promise<string> {
  const router = new SimulatedRouter({ name, delayScale: 0 });
  const outcome = await router.runScript(
    readFileSync(new URL(`../test/routeros/simulator/corpus/${file}`, import.meta.url), "utf8"),
  );
  if (!outcome.ok) throw new Error(`${file}: ${outcome.error}`);
  return (await router.runSource("/export")).join("\n");
}

/** A section set a stack would declare: DNS, a VLAN guarded by find, a firewall rule, the identity. */
function jobsFor(i: number) {
  return [
    { resource: `fleet/r${i}/identity`, script: `/system identity set name=r${i}` },
    { resource: `fleet/r${i}/dns`, script: "/ip dns set servers=9.9.9.9,1.1.1.1" },
    {
      resource: `fleet/r${i}/vlan`,
      script: `:if ([:len [/interface vlan find where name="iot"]] = 0) do={ /interface vlan add interface=ether2 name=iot vlan-id=${100 + (i % 50)} }`,
    },
    {
      resource: `fleet/r${i}/firewall`,
      script: '/ip firewall filter add chain=input action=drop protocol=tcp dst-port=23 comment="no telnet"',
    },
  ];
}

export async function run(): Promise<BenchReport> {
  const exports = [
    await liveExport("office-vlans-wireguard.rsc", "office"),
    await liveExport("home-router.rsc", "home"),
  ];
  const perRouterMs: number[] = [];
  let changedLines = 0;
  const start = performance.now();
  for (let i = 0; i < FLEET; i++) {
    const began = performance.now();
    const twin = await runOnTwin(exports[i % 2] as string, jobsFor(i));
    const diff = diffExports(twin.before, twin.after);
    perRouterMs.push(performance.now() - began);
    changedLines += diff.reduce((sum, menu) => sum + menu.added.length + menu.changed.length, 0);
  }
  const totalMs = performance.now() - start;
  const metrics = {
    routers: FLEET,
    p50MsPerRouter: round(percentile(perRouterMs, 50)),
    p95MsPerRouter: round(percentile(perRouterMs, 95)),
    fleetTotalMs: round(totalMs),
    changedLines,
  };
  return {
    title: "plan: twin load + jobs + diff per router (100 routers)",
    metrics,
    lines: [
      `twin load + 4 jobs + export + diff: p50 ${metrics.p50MsPerRouter} ms, p95 ${metrics.p95MsPerRouter} ms per router`,
      `100 routers: ${metrics.fleetTotalMs} ms after the reads (${changedLines} lines would change)`,
    ],
  };
}
