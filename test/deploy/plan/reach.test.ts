/**
 * plan's reachability check: the declared jobs run on the twin of an office router, then the service's path
 * to it is followed; a lock-out is reported with the rule or setting that cuts it, in text and JSON.
 */
import { describe, expect, it } from "vitest";
import { RouterConfig } from "../../../src/deploy/constructs/index.js";
import { planStack } from "../../../src/deploy/plan/plan.js";
import { type ReachSettings, reachFor } from "../../../src/deploy/plan/reach-options.js";
import { planJson, planText } from "../../../src/deploy/plan/report.js";
import { readStackJobs, stackFile } from "../../../src/deploy/plan/stack-jobs.js";
import { freshRouter, run } from "../../routeros/simulator/helpers.js";
import { ROUTER_A } from "../../service/harness.js";
import { officeVlans, synthStack } from "./fixtures.js";

async function officeExport(): Promise<string> {
  const router = freshRouter("edge-1");
  await run(router, officeVlans);
  return (await router.runSource("/export")).join("\n");
}

const SERVICE_ON_MGMT_VLAN: ReachSettings = {
  serviceAddress: "10.10.99.5",
  routers: new Map([[ROUTER_A, { address: "10.10.99.1" }]]),
};

async function planOf(script: string, settings: ReachSettings = SERVICE_ON_MGMT_VLAN) {
  const reach = reachFor(settings);
  const dir = synthStack((stack) => {
    new RouterConfig(stack, "office", { routerId: ROUTER_A, sections: [{ name: "firewall", script }] });
  });
  const live = await officeExport();
  return planStack({
    jobs: await readStackJobs(await stackFile(dir)),
    readConfig: async () => live,
    ...(reach ? { reach } : {}),
  });
}

describe("plan's reachability check", () => {
  it("reports a drop above the management accept as cutting the service off, naming the rule", async () => {
    // GIVEN the office router, the service at 10.10.99.5 reaching it at 10.10.99.1 (the management VLAN)
    // WHEN a job puts a drop of the management network above the accept
    const plan = await planOf(
      "/ip firewall filter add chain=input action=drop src-address=10.10.99.0/24 place-before=0",
    );
    // THEN the plan counts the router as cut off, and says which rule does it
    expect(plan.cutOff).toBe(1);
    const text = planText(plan).join("\n");
    expect(text).toContain(
      `! this change would cut the service off from ${ROUTER_A}: rule 1 of chain input drops 10.10.99.5 to tcp/8729 (/ip firewall filter number 0)`,
    );
    expect(text).toContain("(path: 10.10.99.5 to 10.10.99.1 tcp/8729 (api-ssl, on vlan99-mgmt))");
    expect(text).toMatch(/; 1 would cut the service off\.$/);
    // AND --json carries the verdict
    expect(planJson(plan)).toMatchObject({
      cut_off: 1,
      routers: [
        { reachability: { status: "cut", reason: expect.stringContaining("rule 1 of chain input") } },
      ],
    });
  });

  it("reports the management VLAN's interface disabled", async () => {
    const plan = await planOf("/interface vlan disable vlan99-mgmt");
    expect(plan.routers[0]?.reachability).toMatchObject({
      status: "cut",
      reason: "interface vlan99-mgmt is disabled",
    });
  });

  it("passes a change that leaves the path alone, and says so", async () => {
    const plan = await planOf(
      "/ip firewall filter add chain=input action=drop protocol=tcp dst-port=23 place-before=0",
    );
    expect(plan.cutOff).toBe(0);
    expect(plan.routers[0]?.reachability?.status).toBe("kept");
    expect(planText(plan).join("\n")).toContain(
      "the service still reaches it: 10.10.99.5 to 10.10.99.1 tcp/8729",
    );
  });

  it("checks nothing without a path (reach off)", async () => {
    const plan = await planOf("/ip service disable api-ssl", { mode: "off" });
    expect(plan.routers[0]?.reachability).toBeUndefined();
    expect(planJson(plan)).toMatchObject({ cut_off: 0, routers: [{ reachability: null }] });
  });
});
