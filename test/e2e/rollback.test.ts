/**
 * Rollback for real: a cdktf Fleet rolled out with `onFailure: "rollback-wave"`, plain `terraform apply`, the
 * built CLI in each provisioner, and the service on loopback with TLS and simulated routers. A failing job is
 * restored by its own apply; a wave whose check fails is restored by its gate. What the routers hold is read
 * back through the service's synchronous endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../src/client/client.js";
import type { FleetRouter } from "../../src/deploy/constructs/index.js";
import { type TerraformDir, terraformOrSkip } from "../helpers/terraform.js";
import { type FleetHarness, startFleetHarness } from "./fleet-harness.js";

const terraform = terraformOrSkip("the rollback tests with terraform");

const ROUTERS: FleetRouter[] = Array.from({ length: 3 }, (_, index) => ({
  name: `r${index + 1}`,
  routerId: `f0000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`,
}));
const DNS_CHECK = ':if ([:len [/ip dns get servers]] = 0) do={:error "no dns servers"}';
const APPLY = ["apply", "-auto-approve", "-input=false"];

describe.skipIf(terraform === undefined)("rolling back with terraform", () => {
  let fleet: FleetHarness;
  let tf: TerraformDir;
  let client: RouterJobsClient;

  beforeAll(async () => {
    // A restore reboots the router; back at once, so that reading it afterwards needs no wait.
    fleet = await startFleetHarness("rollback", terraform as string, ROUTERS, { rebootOfflineMs: 0 });
    ({ tf, client } = fleet);
  });
  afterAll(async () => fleet?.close());

  function synthesize(script: (router: FleetRouter) => string): void {
    fleet.synthesize({
      sections: (router) => [
        { name: "change", script: script(router), description: `change ${router.name}` },
      ],
      rollout: { waves: [1, "100%"], verify: DNS_CHECK, onFailure: "rollback-wave" },
    });
  }

  /** What the test reads of a router: its identity and DNS servers. */
  const stateOf = async (router: FleetRouter) => {
    const [identity] = await client.execute(router.routerId, "/system/identity/print");
    const [dns] = await client.execute(router.routerId, "/ip/dns/print");
    return { name: identity?.name, servers: dns?.servers };
  };
  const states = () => Promise.all(ROUTERS.map(stateOf));

  it("restores the canary whose job failed half way, says so, and touches no later wave", async () => {
    // GIVEN the routers as they are, and a change whose canary job renames the router, then fails
    const before = await states();
    synthesize((router) =>
      router.name === "r1"
        ? '/system identity set name="r1 half"\n/ip dns set servers=10.0.0.53\n:error "gateway unreachable"'
        : "/ip dns set servers=10.0.0.53",
    );
    await tf.mustRun(["init", "-input=false"]);
    // WHEN applied with plain terraform
    const result = await tf.run(APPLY);
    // THEN the apply fails naming the router's reason and the restore in the same line
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(
      /office\/fleet\/r1\/change: wave 1\/2: job #\d+ failed: gateway unreachable.*; rolled back: the router is restored from backup routerjobs-job-\d+ \(restore job #\d+\)/,
    );
    // AND the canary holds what it held before; the later wave got nothing
    expect(await states()).toEqual(before);
    expect((await client.listJobs(ROUTERS[1]?.routerId as string)).length).toBe(0);
  });

  it("restores every router of a wave whose check fails, naming each", async () => {
    // GIVEN the canary fixed, and a change that completes on r2 and r3 but empties r3's DNS servers
    const before = await states();
    synthesize((router) =>
      router.name === "r3"
        ? '/system identity set name="r3 new"\n/ip dns set servers=""'
        : `/system identity set name="${router.name} new"\n/ip dns set servers=10.0.0.53`,
    );
    // WHEN applied again
    const result = await tf.run(APPLY);
    // THEN wave 1 passed; wave 2's check failed on r3 and its gate restored r2 and r3
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/rollout-wave-1: wave 1\/2: passed: wave 2 may start/);
    expect(result.output).toMatch(/check FAILED on r3 .*no dns servers/);
    expect(result.output).toMatch(/rollback-wave: 2 of 2 router\(s\) restored/);
    expect(result.output).toMatch(/r2: rolled back: the router is restored from backup routerjobs-job-\d+/);
    // AND r2 and r3 hold what they held before the wave; the canary keeps its completed change
    const after = await states();
    expect(after.slice(1)).toEqual(before.slice(1));
    expect(after[0]).toEqual({ name: "r1 new", servers: "10.0.0.53" });
  });

  it("does not let a re-run pass a rolled-back wave whose jobs Terraform records as done", async () => {
    // GIVEN the same declared change, its wave 2 rolled back by its gate
    const before = await states();
    // WHEN applied again unchanged (Terraform re-creates only the failed gate)
    const result = await tf.run(APPLY);
    // THEN the gate refuses before its check, naming the restored routers and the way to run the jobs again
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(
      /rollout-wave-2: wave 2\/2: the wave was rolled back on r2 \(restore job #\d+\), r3 \(restore job #\d+\)/,
    );
    expect(result.output).not.toMatch(/office\/fleet\/r[23]\/change: .*submitted/);
    expect(await states()).toEqual(before);
  });
});
