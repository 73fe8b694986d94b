/**
 * Fleet rollouts for real: a cdktf stack synthesized with the constructs, plain `terraform apply` (no
 * routerjobs deploy around it), the built CLI in each provisioner (`apply` for jobs, `verify` for the wave
 * gates), and the service on loopback with TLS and simulated routers. What reached each router is counted in
 * its job list at the service.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../src/client/client.js";
import type { LocalStack } from "../../src/demo/local-stack.js";
import type { FleetRouter, RolloutProps } from "../../src/deploy/constructs/index.js";
import { deployJobs, groupDeploys } from "../../src/service/portal/deploys.js";
import { type TerraformDir, terraformOrSkip } from "../helpers/terraform.js";
import { type FleetHarness, startFleetHarness } from "./fleet-harness.js";

const terraform = terraformOrSkip("the rollout tests with terraform");

const ROUTERS: FleetRouter[] = Array.from({ length: 5 }, (_, index) => ({
  name: `r${index + 1}`,
  routerId: `e0000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`,
}));
/** [1, "40%", "100%"] on 5 routers: r1 (the canary), then r2 (ceil(40% x 5) = 2), then r3, r4 and r5. */
const WAVES: RolloutProps<FleetRouter>["waves"] = [1, "40%", "100%"];
/** The check between waves: a change that empties the DNS servers completes as a job, and fails here. */
const DNS_CHECK = ':if ([:len [/ip dns get servers]] = 0) do={:error "no dns servers"}';
const APPLY = ["apply", "-auto-approve", "-input=false"];

describe.skipIf(terraform === undefined)("rolling a fleet out in waves with terraform", () => {
  let fleet: FleetHarness;
  let stack: LocalStack;
  let tf: TerraformDir;
  let client: RouterJobsClient;

  beforeAll(async () => {
    fleet = await startFleetHarness("rollout", terraform as string, ROUTERS);
    ({ stack, tf, client } = fleet);
  });
  afterAll(async () => fleet?.close());

  /** The fleet with one `dns` section per router; `script` gives each router's script. */
  function synthesize(script: (router: FleetRouter) => string, rollout: RolloutProps<FleetRouter>): void {
    fleet.synthesize({
      sections: (router) => [{ name: "dns", script: script(router), description: `dns of ${router.name}` }],
      rollout,
    });
  }

  const jobsOf = (router: FleetRouter) => client.listJobs(router.routerId);
  const counts = async () => Promise.all(ROUTERS.map(async (router) => (await jobsOf(router)).length));

  it("stops at the canary when its job fails: no router of a later wave is touched", async () => {
    // GIVEN a change whose canary job fails on the router
    synthesize(
      (router) =>
        router.name === "r1"
          ? "/ip address add address=10.7.7.1/24 interface=nope"
          : "/ip dns set servers=10.0.0.53",
      { waves: WAVES, verify: DNS_CHECK },
    );
    await tf.mustRun(["init", "-input=false"]);
    // WHEN applied with plain terraform
    const result = await tf.run(APPLY);
    // THEN the apply fails naming the canary's job, its wave and the router's reason
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/routerjobs: office\/fleet\/r1\/dns: wave 1\/3: submitted/);
    expect(result.output).toContain("input does not match any value of interface");
    // AND only the canary received a job: waves 2 and 3 were never started
    expect(await counts()).toEqual([1, 0, 0, 0, 0]);
    expect(result.output).not.toMatch(/routerjobs: office\/fleet\/r[2-5]\/dns/);
    expect(result.output).not.toMatch(/rollout-wave-1: wave/);
  });

  it("stops after a wave whose check fails, printing the check's output", async () => {
    // GIVEN the canary fixed, and a change for r2 that completes as a job but empties its DNS servers
    synthesize((router) => `/ip dns set servers=${router.name === "r2" ? '""' : "10.0.0.53"}`, {
      waves: WAVES,
      verify: DNS_CHECK,
    });
    // WHEN applied again
    const result = await tf.run(APPLY);
    // THEN wave 1 passed its check, wave 2's check failed on r2 with the router's text, and wave 3 waited
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/rollout-wave-1: wave 1\/3: check passed on r1/);
    expect(result.output).toMatch(/rollout-wave-1: wave 1\/3: passed: wave 2 may start/);
    expect(result.output).toMatch(
      /rollout-wave-2: wave 2\/3: check FAILED on r2 \([0-9a-f-]{36}\): .*no dns servers/,
    );
    expect(result.output).toMatch(
      /wave 2\/3: the check failed on 1 of 1 router\(s\) \(r2: .*no dns servers.*\); wave 3 is not started/,
    );
    // AND the canary's replaced job ran once more, r2's once, wave 3 not at all
    expect(await counts()).toEqual([2, 1, 0, 0, 0]);
  });

  it("continues where it stopped after the fix: completed routers are not run again", async () => {
    // GIVEN r2's change fixed
    synthesize(() => "/ip dns set servers=10.0.0.53", { waves: WAVES, verify: DNS_CHECK });
    // WHEN applied again
    const output = await tf.mustRun(APPLY);
    // THEN the canary (already done for this change) is not touched, r2 runs its fixed job, wave 3 runs
    expect(await counts()).toEqual([2, 2, 1, 1, 1]);
    expect(output).not.toMatch(/office\/fleet\/r1\/dns:/);
    expect(output).toMatch(/office\/fleet\/r4\/dns: wave 3\/3: /);
    expect(output).toMatch(/rollout-wave-3: wave 3\/3: passed: the rollout is complete/);
    // AND every router completed every job it got
    for (const router of ROUTERS.slice(1)) expect((await jobsOf(router))[0]?.status).toBe("completed");
    // AND a further apply changes nothing
    expect(await tf.mustRun(APPLY)).toMatch(/No changes|0 added, 0 changed, 0 destroyed/);
    expect(await counts()).toEqual([2, 2, 1, 1, 1]);
  });

  it("moves routers between waves without running a job again", async () => {
    // GIVEN the same change, with waves a function assigns: r5 first, then everyone else
    synthesize(() => "/ip dns set servers=10.0.0.53", { waves: byFunction, verify: DNS_CHECK });
    // WHEN applied
    const output = await tf.mustRun(APPLY);
    // THEN only the gates changed: no router got a job
    expect(await counts()).toEqual([2, 2, 1, 1, 1]);
    expect(output).not.toMatch(/routerjobs: office\/fleet\/r\d\/dns/);
  });

  it("orders waves a function assigns: wave 1's job completed before any other router's started", async () => {
    // GIVEN a new change for every router, with the waves of the step before
    synthesize(() => "/ip dns set servers=10.0.0.54", { waves: byFunction, verify: DNS_CHECK });
    // WHEN applied
    const output = await tf.mustRun(APPLY);
    // THEN each router ran the change once
    expect(await counts()).toEqual([3, 3, 2, 2, 2]);
    expect(output).toMatch(/office\/fleet\/r5\/dns: wave 1\/2: /);
    expect(output).toMatch(/office\/fleet\/r1\/dns: wave 2\/2: /);
    // AND r5's job completed before the first job of wave 2 started
    const [first] = await jobsOf(ROUTERS[4] as FleetRouter);
    const firstDone = Date.parse(first?.completed_at as string);
    for (const router of ROUTERS.slice(0, 4)) {
      const [latest] = await jobsOf(router);
      expect(Date.parse(latest?.started_at as string)).toBeGreaterThanOrEqual(firstDone);
    }
  });

  it("shows each run that submitted jobs as a deploy by wave, as the portal groups the service's jobs", async () => {
    // GIVEN the runs above, seen only as the service sees them: jobs with their markers and waves
    const deploys = groupDeploys(await deployJobs(stack.service.app.db, null, new Date())).reverse();
    const lanes = (index: number) =>
      deploys[index]?.lanes.map((lane) => [
        lane.wave && `${lane.wave.wave}/${lane.wave.waves}`,
        lane.routers.map((router) => router.name),
      ]);
    // Routers of one wave run in parallel: their order in a lane is the order their jobs arrived.
    const namesIn = (index: number, lane: number) =>
      (deploys[index]?.lanes[lane]?.routers ?? []).map((router) => router.name).sort();
    // THEN the four runs that submitted jobs are four deploys, each router in its wave, the failure counted
    expect(deploys).toHaveLength(4);
    expect(lanes(0)).toEqual([["1/3", ["r1"]]]);
    expect(deploys[0]?.failed).toBe(1);
    expect(lanes(1)).toEqual([
      ["1/3", ["r1"]],
      ["2/3", ["r2"]],
    ]);
    expect(lanes(2)?.map(([wave]) => wave)).toEqual(["2/3", "3/3"]);
    expect(namesIn(2, 1)).toEqual(["r3", "r4", "r5"]);
    expect(lanes(3)?.[0]).toEqual(["1/2", ["r5"]]);
    expect(namesIn(3, 1)).toEqual(["r1", "r2", "r3", "r4"]);
    expect(deploys.slice(1).map((deploy) => deploy.failed)).toEqual([0, 0, 0]);
  });
});

const byFunction = (router: FleetRouter) => (router.name === "r5" ? 1 : 2);
