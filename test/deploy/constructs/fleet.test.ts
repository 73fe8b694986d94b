import { describe, expect, it } from "vitest";
import { Fleet, type FleetRouter } from "../../../src/deploy/constructs/index.js";
import { ROUTER_A, ROUTER_B, resourceAt, resourcesOf, synth } from "./support.js";

interface Site extends FleetRouter {
  readonly dns: string;
}

const SITES: readonly Site[] = [
  { name: "edge-1", routerId: ROUTER_A, dns: "10.1.0.53" },
  { name: "edge-2", routerId: ROUTER_B, dns: "10.2.0.53" },
];

const sections = (site: Site) => [
  { name: "identity", script: `/system identity set name=${site.name}` },
  { name: "dns", script: `/ip dns set servers=${site.dns}` },
];

describe("Fleet", () => {
  it("gives each router its own values and chain, with no dependency across routers", () => {
    // GIVEN two routers with per-router values
    // WHEN synthesized
    let fleet: Fleet<Site> | undefined;
    const text = synth((stack) => {
      fleet = new Fleet(stack, "branches", { routers: SITES, sections, expressExecute: true });
    });
    // THEN each router's sections are chained within the router only
    expect(Object.keys(resourcesOf(text))).toHaveLength(4);
    for (const site of SITES) {
      expect(resourceAt(text, `branches/${site.name}/identity`).depends_on).toBeUndefined();
      const [dependency] = resourceAt(text, `branches/${site.name}/dns`).depends_on ?? [];
      expect(dependency).toMatch(new RegExp(`^terraform_data\\.branches_${site.name}_identity_job_`));
    }
    // AND each job carries its router's id, values and the fleet-wide options
    const dns = fleet?.configs.get("edge-2")?.sections[1]?.job;
    expect(dns).toMatchObject({
      router_id: ROUTER_B,
      script: "/ip dns set servers=10.2.0.53",
      express_execute: true,
    });
  });

  it("refuses the same router id twice, naming both entries", () => {
    // GIVEN one router listed under two names
    const routers = [...SITES, { name: "edge-1-again", routerId: ROUTER_A, dns: "10.9.0.53" }];
    // THEN the fleet refuses it at synth time
    expect(() => synth((stack) => new Fleet(stack, "branches", { routers, sections }))).toThrow(
      `office/branches: routers must name each router once (${ROUTER_A} is both edge-1 and edge-1-again)`,
    );
  });

  it("reports an invalid section with the router's path", () => {
    const routers = [{ name: "edge-9", routerId: ROUTER_B, dns: "" }];
    expect(() =>
      synth(
        (stack) => new Fleet(stack, "branches", { routers, sections: () => [{ name: "dns", script: "" }] }),
      ),
    ).toThrow(/^office\/branches\/edge-9\/dns: script must not be empty$/);
  });

  it("synthesizes to the same JSON as before (snapshot)", () => {
    const text = synth((stack) => new Fleet(stack, "branches", { routers: SITES, sections }));
    expect(JSON.parse(text)).toMatchSnapshot();
  });
});
