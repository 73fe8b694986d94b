import { describe, expect, it } from "vitest";
import { WAVE_CHECK_ENV } from "../../../src/contract/wave-check.js";
import {
  APPLY_JOB_ENV,
  Fleet,
  type FleetRouter,
  type RolloutProps,
} from "../../../src/deploy/constructs/index.js";
import { provisioners, resourceAt, resourcesOf, type SynthResource, synth } from "./support.js";

/** n routers with distinct UUIDs, in fleet order. */
function routers(size: number): FleetRouter[] {
  return Array.from({ length: size }, (_, index) => ({
    name: `r${index + 1}`,
    routerId: `00000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`,
  }));
}

const sections = (router: FleetRouter) => [
  { name: "identity", script: `/system identity set name=${router.name}` },
  { name: "dns", script: "/ip dns set servers=10.0.0.53" },
];

function synthFleet(size: number, rollout?: RolloutProps<FleetRouter>, dns = "10.0.0.53"): string {
  return synth((stack) => {
    new Fleet(stack, "branches", {
      routers: routers(size),
      sections: (router) => [
        sections(router)[0] as never,
        { name: "dns", script: `/ip dns set servers=${dns}` },
      ],
      ...(rollout ? { rollout } : {}),
    });
  });
}

/** The gate resources, keyed by wave number. */
function gates(text: string): Map<number, SynthResource> {
  const found = new Map<number, SynthResource>();
  for (const [name, resource] of Object.entries(resourcesOf(text))) {
    const match = /^branches_rollout-wave-(\d+)_gate_/.exec(name);
    if (match) found.set(Number(match[1]), resource);
  }
  return found;
}

const gateAddress = (text: string, wave: number) =>
  `terraform_data.${Object.keys(resourcesOf(text)).find((name) => name.startsWith(`branches_rollout-wave-${wave}_gate_`))}`;
const jobAddress = (text: string, path: string) =>
  `terraform_data.${Object.keys(resourcesOf(text)).find((name) => name.startsWith(`${path.replaceAll("/", "_")}_job_`))}`;

describe("Fleet rollout", () => {
  it("orders 200 routers in waves through one gate per wave: O(n) dependency edges", () => {
    // GIVEN a fleet of 200 routers rolled out as a canary, 10%, then the rest
    // WHEN synthesized
    const text = synthFleet(200, { waves: [1, "10%", "100%"] });
    // THEN there is a gate after waves 1 and 2 (the last wave has nothing after it to hold back)
    const found = gates(text);
    expect([...found.keys()]).toEqual([1, 2]);
    // AND gate 1 waits for the canary's last section; wave 2's first sections wait for gate 1 only
    expect(found.get(1)?.depends_on).toEqual([jobAddress(text, "branches/r1/dns")]);
    expect(resourceAt(text, "branches/r1/identity").depends_on).toBeUndefined();
    for (const name of ["r2", "r20"]) {
      expect(resourceAt(text, `branches/${name}/identity`).depends_on).toEqual([gateAddress(text, 1)]);
    }
    // AND gate 2 waits for the last section of each of wave 2's 19 routers; wave 3 waits for gate 2
    expect(found.get(2)?.depends_on).toHaveLength(19);
    expect(resourceAt(text, "branches/r21/identity").depends_on).toEqual([gateAddress(text, 2)]);
    expect(resourceAt(text, "branches/r200/identity").depends_on).toEqual([gateAddress(text, 2)]);
    // AND the whole graph has 200 section edges (dns after identity) plus 200 router-gate edges in and out
    const edges = Object.values(resourcesOf(text)).reduce((sum, r) => sum + (r.depends_on?.length ?? 0), 0);
    expect(edges).toBe(200 + 1 + 19 + (19 + 180));
  });

  it("carries the wave in each job, outside job_key, so waves never re-run a job", () => {
    // GIVEN the same fleet with and without a rollout
    const plain = synthFleet(3);
    const waved = synthFleet(3, { waves: [1, "100%"] });
    const job = (text: string, path: string) =>
      JSON.parse(provisioners(resourceAt(text, path))[0]?.environment[APPLY_JOB_ENV] as string);
    // THEN each job names its wave
    expect(job(waved, "branches/r1/dns").rollout).toEqual({ wave: 1, waves: 2 });
    expect(job(waved, "branches/r3/identity").rollout).toEqual({ wave: 2, waves: 2 });
    expect(job(plain, "branches/r3/identity").rollout).toBeUndefined();
    // AND the job's key and replace triggers are the same as without waves
    for (const path of ["branches/r1/dns", "branches/r3/identity"]) {
      expect(job(waved, path).job_key).toBe(job(plain, path).job_key);
      expect(resourceAt(waved, path).triggers_replace).toEqual(resourceAt(plain, path).triggers_replace);
    }
  });

  it("assigns waves with a function", () => {
    // GIVEN odd-numbered routers in wave 1, the others in wave 2
    const text = synthFleet(4, { waves: (_router, index) => (index % 2 === 0 ? 1 : 2) });
    // THEN r2 and r4 wait for the gate of r1 and r3
    expect(gates(text).get(1)?.depends_on?.sort()).toEqual(
      [jobAddress(text, "branches/r1/dns"), jobAddress(text, "branches/r3/dns")].sort(),
    );
    expect(resourceAt(text, "branches/r2/identity").depends_on).toEqual([gateAddress(text, 1)]);
    expect(resourceAt(text, "branches/r3/identity").depends_on).toBeUndefined();
  });

  it("runs `routerjobs verify` in each gate, the last wave's too, with the wave's routers", () => {
    // GIVEN a check and a soak
    const text = synthFleet(3, {
      waves: [1, "100%"],
      verify: [':put "checking"', "/ip address print"],
      soak: "30s",
    });
    // THEN both waves have a gate whose provisioner runs verify with the check in its environment
    const found = gates(text);
    expect([...found.keys()]).toEqual([1, 2]);
    const [exec] = provisioners(found.get(2) as SynthResource);
    expect(exec?.command).toBe("routerjobs verify");
    expect(exec?.quiet).toBe(true);
    const check = JSON.parse(exec?.environment[WAVE_CHECK_ENV] as string);
    expect(check).toMatchObject({
      version: 1,
      resource: "office/branches/rollout-wave-2",
      wave: { wave: 2, waves: 2 },
      routers: [
        { name: "r2", router_id: routers(3)[1]?.routerId },
        { name: "r3", router_id: routers(3)[2]?.routerId },
      ],
      script: ':put "checking"\n/ip address print',
      soak_ms: 30_000,
      timeout_ms: 120_000,
    });
  });

  it("replaces a wave's gate (so checks it again) when a job of that wave changes, not another wave's", () => {
    const before = gates(synthFleet(3, { waves: [1, "100%"], verify: "/ip address print" }));
    const after = gates(synthFleet(3, { waves: [1, "100%"], verify: "/ip address print" }, "10.9.9.53"));
    // Every router's dns changed: both gates' job triggers change, their check trigger does not.
    expect(after.get(1)?.triggers_replace?.jobs).not.toBe(before.get(1)?.triggers_replace?.jobs);
    expect(after.get(1)?.triggers_replace?.check).toBe(before.get(1)?.triggers_replace?.check);
    const onlyWave2 = gates(
      synth((stack) => {
        new Fleet(stack, "branches", {
          routers: routers(3),
          sections: (router) => [
            sections(router)[0] as never,
            {
              name: "dns",
              script: `/ip dns set servers=${router.name === "r1" ? "10.0.0.53" : "10.9.9.53"}`,
            },
          ],
          rollout: { waves: [1, "100%"], verify: "/ip address print" },
        });
      }),
    );
    expect(onlyWave2.get(1)?.triggers_replace).toEqual(before.get(1)?.triggers_replace);
    expect(onlyWave2.get(2)?.triggers_replace?.jobs).not.toBe(before.get(2)?.triggers_replace?.jobs);
  });

  it.each([
    [
      { verify: "/ip address add address=10.0.0.1/24 interface=ether1" },
      /rollout\.verify must only read .*`\/ip address add`/,
    ],
    [{ verify: "/ip address print where" }, /rollout\.verify does not parse as RouterOS/],
    [{ verify: " " }, /rollout\.verify must not be empty/],
    [
      { soak: "soon" },
      /rollout\.soak must be a number followed by ms, s, m or h, like 30s or 5m \(got "soon"\)/,
    ],
    [{ onFailure: "rollback" }, /rollout\.onFailure must be "stop" or "rollback-wave" \(got "rollback"\)/],
  ])("refuses %j at synth time", (extra, message) => {
    expect(() => synthFleet(3, { waves: [1, "100%"], ...(extra as object) })).toThrow(message);
  });

  it("leaves a fleet without rollout byte for byte as before", () => {
    // The structural snapshot in fleet.test.ts predates rollouts; this one pins the exact text.
    expect(synthFleet(3)).toMatchSnapshot();
  });
});
