/** `rollback` on the constructs and `onFailure: "rollback-wave"` on a Fleet rollout, at synth time. */
import { describe, expect, it } from "vitest";
import { parseApplyJob } from "../../../src/contract/apply-job.js";
import { parseWaveCheck, WAVE_CHECK_ENV } from "../../../src/contract/wave-check.js";
import {
  APPLY_JOB_ENV,
  Fleet,
  type FleetRouter,
  type RolloutProps,
  RouterConfig,
  RouterScript,
} from "../../../src/deploy/constructs/index.js";
import { provisioners, ROUTER_A, resourceAt, resourcesOf, synth } from "./support.js";

const jobAt = (text: string, path: string) =>
  parseApplyJob(provisioners(resourceAt(text, path))[0]?.environment[APPLY_JOB_ENV] as string);

const routers: FleetRouter[] = [1, 2, 3].map((n) => ({
  name: `r${n}`,
  routerId: `00000000-0000-4000-8000-00000000000${n}`,
}));

function synthFleet(rollout: RolloutProps<FleetRouter>, extra: object = {}): string {
  return synth((stack) => {
    new Fleet(stack, "branches", {
      routers,
      sections: (router) => [
        { name: "identity", script: `/system identity set name=${router.name}` },
        { name: "dns", script: "/ip dns set servers=10.0.0.53" },
      ],
      rollout,
      ...extra,
    });
  });
}

describe("rollback on the constructs", () => {
  it("carries rollback: on-failure in the job JSON, outside job_key", () => {
    const build = (rollback?: "on-failure") =>
      synth((stack) => {
        new RouterScript(stack, "vlan", {
          routerId: ROUTER_A,
          script: "/interface vlan add name=guest vlan-id=30 interface=ether2",
          ...(rollback ? { rollback } : {}),
        });
      });
    const withRollback = jobAt(build("on-failure"), "vlan");
    const without = jobAt(build(), "vlan");
    expect(withRollback.rollback).toBe("on-failure");
    expect(without).not.toHaveProperty("rollback");
    // Asking for a rollback runs nothing again on the router.
    expect(withRollback.job_key).toBe(without.job_key);
  });

  it("passes rollback from a RouterConfig to its sections", () => {
    const text = synth((stack) => {
      new RouterConfig(stack, "edge", {
        routerId: ROUTER_A,
        rollback: "on-failure",
        sections: [{ name: "dns", script: "/ip dns set servers=10.0.0.53" }],
      });
    });
    expect(jobAt(text, "edge/dns").rollback).toBe("on-failure");
  });

  it.each([
    [{ rollback: "always" }, /rollback must be one of on-failure \(got "always"\)/],
    [
      { rollback: "on-failure", makeBackup: false },
      /rollback needs makeBackup: true: "on-failure" restores the router from the backup the job takes/,
    ],
  ])("refuses %j at synth naming the field", (extra, message) => {
    expect(() =>
      synth((stack) => {
        new RouterScript(stack, "vlan", {
          routerId: ROUTER_A,
          script: "/ip dns print",
          ...(extra as object),
        });
      }),
    ).toThrow(message);
  });
});

describe("rollback-wave on a Fleet rollout", () => {
  it("gives every job rollback: on-failure and the gate's check the wave's jobs", () => {
    const text = synthFleet({ waves: [1, "100%"], verify: "/ip address print", onFailure: "rollback-wave" });
    expect(jobAt(text, "branches/r2/dns").rollback).toBe("on-failure");
    const gate = Object.entries(resourcesOf(text)).find(([name]) =>
      name.startsWith("branches_rollout-wave-1_gate_"),
    )?.[1];
    const check = parseWaveCheck(provisioners(gate as never)[0]?.environment[WAVE_CHECK_ENV] as string);
    expect(check.on_failure).toBe("rollback-wave");
    expect(check.routers[0]?.jobs?.map((job) => job.resource)).toEqual([
      "office/branches/r1/identity",
      "office/branches/r1/dns",
    ]);
    expect(check.routers[0]?.jobs?.[1]?.job_key).toBe(jobAt(text, "branches/r1/dns").job_key);
  });

  it("leaves a rollout with onFailure stop byte for byte as one without onFailure", () => {
    const plain = synthFleet({ waves: [1, "100%"], verify: "/ip address print" });
    expect(synthFleet({ waves: [1, "100%"], verify: "/ip address print", onFailure: "stop" })).toBe(plain);
    expect(plain).not.toContain("rollback");
    expect(plain).not.toContain("on_failure");
  });

  it.each([
    [{ makeBackup: false }, /rollout\.onFailure "rollback-wave" needs makeBackup: true/],
    [{ api: "sdx" }, /rollout\.onFailure "rollback-wave" cannot work with api: "sdx"/],
  ])("refuses rollback-wave with %j naming rollout.onFailure", (extra, message) => {
    expect(() => synthFleet({ waves: [1, "100%"], onFailure: "rollback-wave" }, extra)).toThrow(message);
  });
});
