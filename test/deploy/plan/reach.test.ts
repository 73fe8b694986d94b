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

/** The office router's export, with `extra` run on it first (a setting the case needs before the change). */
async function officeExport(extra = ""): Promise<string> {
  const router = freshRouter("edge-1");
  await run(router, officeVlans);
  if (extra) await run(router, extra);
  return (await router.runSource("/export")).join("\n");
}

const SERVICE_ON_MGMT_VLAN: ReachSettings = {
  serviceAddress: "10.10.99.5",
  routers: new Map([[ROUTER_A, { address: "10.10.99.1" }]]),
};

async function planOf(script: string, settings: ReachSettings = SERVICE_ON_MGMT_VLAN, before = "") {
  const reach = reachFor(settings);
  const dir = synthStack((stack) => {
    new RouterConfig(stack, "office", { routerId: ROUTER_A, sections: [{ name: "firewall", script }] });
  });
  const live = await officeExport(before);
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

  /** A service beyond the router's networks (let in by the management list), so the route back counts. */
  const REMOTE_SERVICE: ReachSettings = { ...SERVICE_ON_MGMT_VLAN, serviceAddress: "192.0.2.50" };
  const LET_REMOTE_IN = "/ip firewall address-list add list=mgmt-nets address=192.0.2.50";

  // Each kind of lock-out, as plan reports it: the rule or the setting that cuts the path, named.
  it.each([
    {
      kind: "a raw prerouting rule",
      script:
        "/ip firewall raw add chain=prerouting action=drop protocol=tcp dst-port=8729 src-address=10.10.99.0/24",
      reason: "rule 1 of chain prerouting drops 10.10.99.5 to tcp/8729 (/ip firewall raw number 0)",
    },
    {
      kind: "a filter rule in a chain an input rule jumps to",
      script: `/ip firewall filter add chain=input action=jump jump-target=guard place-before=0
/ip firewall filter add chain=guard action=reject protocol=tcp dst-port=8729 comment="no api"`,
      reason:
        'rule 1 of chain guard rejects 10.10.99.5 to tcp/8729 (/ip firewall filter number 11, "no api")',
    },
    {
      kind: "the service's network taken off the address list the accept reads",
      script: "/ip firewall address-list remove [find list=mgmt-nets address=10.10.99.0/24]",
      reason:
        'rule 6 of chain input drops 10.10.99.5 to tcp/8729 (/ip firewall filter number 5, "drop the rest")',
    },
    {
      kind: "the bridge under the management VLAN disabled",
      script: "/interface bridge disable br-core",
      reason: "interface br-core is disabled",
    },
    {
      kind: "the management VLAN no longer passed to the bridge",
      script: "/interface bridge vlan set [find vlan-ids=99] tagged=ether2",
      reason:
        "bridge br-core filters VLANs and no /interface bridge vlan entry passes vlan 99 to the router (tagged=br-core)",
    },
    {
      kind: "the trunk port the service comes in on taken off the bridge",
      script: "/interface bridge port remove [find interface=ether2]",
      settings: {
        ...SERVICE_ON_MGMT_VLAN,
        routers: new Map([[ROUTER_A, { address: "10.10.99.1", ingressPort: "ether2" }]]),
      },
      reason: "ether2, the port the service comes in on, is no longer an enabled port of bridge br-core",
    },
    {
      kind: "the management address removed",
      script: "/ip address remove [find address=10.10.99.1/24]",
      reason: "10.10.99.1 is no longer an address of the router (it was on vlan99-mgmt)",
    },
    {
      kind: "the management address moved to another interface",
      script: "/ip address set [find address=10.10.99.1/24] interface=vlan10-staff",
      reason: "/ip address 10.10.99.1 moved from vlan99-mgmt to vlan10-staff",
    },
    {
      kind: "the route back to a remote service removed",
      script: "/ip route remove [find dst-address=0.0.0.0/0]",
      settings: REMOTE_SERVICE,
      before: LET_REMOTE_IN,
      reason: "the router has no route to 192.0.2.50: its replies to 192.0.2.50 cannot leave",
    },
    {
      kind: "the API service moved to another port",
      script: "/ip service set api-ssl port=8730",
      reason: "/ip service api-ssl listens on tcp/8730, not tcp/8729",
    },
    {
      kind: "the API service restricted to other addresses",
      script: "/ip service set api-ssl address=10.99.0.0/24",
      reason: "/ip service api-ssl takes connections only from 10.99.0.0/24, not from 10.10.99.5",
    },
  ])("reports $kind, naming it", async ({ script, settings, before, reason }) => {
    const plan = await planOf(script, settings, before);
    expect(plan.cutOff).toBe(1);
    expect(plan.routers[0]?.reachability).toMatchObject({ status: "cut", reason });
    expect(planText(plan).join("\n")).toContain(`! this change would cut the service off from ${ROUTER_A}: `);
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
