/**
 * A rollout whose canary locks the service out, for real: a cdktf stack synthesized with the constructs,
 * `routerjobs deploy` (the real terraform, the built CLI in each provisioner), and the service on loopback with
 * simulated routers that answer the service only while their configuration lets it in. The canary's job arms
 * a revert (`safeChange`), cuts the service off, and the router restores itself at the deadline; the rollout
 * stops there. The routers' clock is the test's: the deadline passes when the test moves it, never by waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../src/client/client.js";
import type { LocalStack } from "../../src/demo/local-stack.js";
import type { FleetRouter } from "../../src/deploy/constructs/index.js";
import { type TerraformDir, terraformOrSkip } from "../helpers/terraform.js";
import { waitFor } from "../helpers/wait-for.js";
import { startDeployTree } from "./deploy-harness.js";
import { type FleetHarness, startFleetHarness } from "./fleet-harness.js";

const terraform = terraformOrSkip("the safe-change rollout with terraform");

const ROUTERS: FleetRouter[] = Array.from({ length: 3 }, (_, index) => ({
  name: `s${index + 1}`,
  routerId: `f0000000-0000-4000-8000-${String(index + 1).padStart(12, "0")}`,
}));
const [CANARY, ...LATER] = ROUTERS as [FleetRouter, ...FleetRouter[]];
/** The service's address as the routers see its connections, and the API-SSL port it connects to. */
const SERVICE_ADDRESS = "10.0.0.5";
const CONFIRM_WITHIN_MS = 120_000;
const REBOOT_OFFLINE_MS = 30_000;
const LOCKOUT = `/ip firewall filter add chain=input action=drop src-address=${SERVICE_ADDRESS} comment=oops`;
const HARMLESS = "/ip firewall filter add chain=input action=drop protocol=tcp dst-port=23";

describe.skipIf(terraform === undefined)("a safe-change rollout whose canary cuts the service off", () => {
  let fleet: FleetHarness;
  let stack: LocalStack;
  let tf: TerraformDir;
  let client: RouterJobsClient;
  /** How far the routers' clock is ahead of the system's. */
  let routerClockAheadMs = 0;

  beforeAll(async () => {
    fleet = await startFleetHarness("safe-rollout", terraform as string, ROUTERS, {
      rebootOfflineMs: REBOOT_OFFLINE_MS,
      routerClock: () => new Date(Date.now() + routerClockAheadMs),
      reach: { direction: "inbound", source: SERVICE_ADDRESS, protocol: "tcp", port: 8729 },
    });
    ({ stack, tf, client } = fleet);
  });
  afterAll(async () => fleet?.close());

  /** Three routers in three waves, each with one `firewall` section; `script` gives the canary's. */
  function synthesize(canaryScript: string): void {
    fleet.synthesize({
      safeChange: { confirmWithin: `${CONFIRM_WITHIN_MS / 1000}s` },
      sections: (router) => [
        { name: "firewall", script: router === CANARY ? canaryScript : HARMLESS, description: "firewall" },
      ],
      rollout: { waves: [1, 2, 3] },
    });
  }

  const jobsOf = (router: FleetRouter) => client.listJobs(router.routerId);
  const safeBackupsOf = async (router: FleetRouter) =>
    (await client.execute(router.routerId, "/file/print"))
      .map((file) => String(file.name))
      .filter((name) => name.startsWith("routerjobs-safe-"));
  /** The router's export, read on the simulated router itself (the service attaches it on its first call). */
  const exportOf = async (router: FleetRouter) => {
    await client.execute(router.routerId, "/system/identity/print");
    return (await stack.simulated.router(router.routerId).runSource("/export")).join("\n");
  };

  it("stops at the canary, which restores itself at the deadline; no later wave runs", async () => {
    // GIVEN the canary's export before the change
    const before = await exportOf(CANARY);
    synthesize(LOCKOUT);
    // WHEN the rollout is deployed and the canary's change drops the service's address
    const deploy = startDeployTree(tf.dir, stack.env);
    let output = "";
    deploy.done.then((result) => (output = result.output));
    // THEN the canary's job completed, and the confirmation waits behind the cut
    await waitFor(
      async () =>
        (await jobsOf(CANARY)).some(
          (job) => job.description.startsWith("safe-change confirm") && job.status === "pending",
        ),
      { what: "the canary's confirmation pending behind the cut", detail: () => output },
    );
    expect(stack.simulated.isOnline(CANARY.routerId)).toBe(false);
    // AND at the deadline the router loads its backup and reboots; once back, the confirmation fails
    routerClockAheadMs += CONFIRM_WITHIN_MS;
    await waitFor(() => stack.simulated.isRebooting(CANARY.routerId), { what: "the canary's revert" });
    routerClockAheadMs += REBOOT_OFFLINE_MS;
    const result = await deploy.done;
    expect(result.code).toBe(1);
    expect(result.output).toContain(
      `reverted on ${CANARY.name} (${CANARY.routerId}): the service could not reach it within 2m after the change`,
    );
    // AND the canary is as it was before the job, and the backup its revert loaded is gone
    expect(await exportOf(CANARY)).toBe(before);
    expect(await safeBackupsOf(CANARY)).toEqual([]);
    // AND the later waves never ran: their routers' job lists are empty
    for (const router of LATER) expect(await jobsOf(router)).toEqual([]);
    expect(result.output).not.toMatch(/routerjobs: office\/fleet\/s[23]\/firewall/);
    expect(result.output).not.toMatch(/rollout-wave-1: wave/);
  });

  it("after the fix, every wave runs and confirms its change, and no revert stays armed", async () => {
    // GIVEN the canary's change fixed: it keeps the service's way in
    synthesize(HARMLESS);
    // WHEN deployed again
    const result = await startDeployTree(tf.dir, stack.env).done;
    // THEN every wave ran and each router confirmed its change
    expect(result.code, result.output).toBe(0);
    for (const router of ROUTERS) {
      expect(result.output).toMatch(
        new RegExp(
          `routerjobs: office/fleet/${router.name}/firewall: wave \\d/3: confirmed: the service reached the router again`,
        ),
      );
      const [confirmation, change] = await jobsOf(router);
      expect(confirmation).toMatchObject({
        status: "completed",
        description: expect.stringContaining("safe-change confirm"),
      });
      expect(change?.status).toBe("completed");
      // AND the router holds the change, with nothing left scheduled and no safe-change backup behind
      const exported = await exportOf(router);
      expect(exported).toContain("dst-port=23");
      expect(exported).not.toContain("scheduler");
      expect(await safeBackupsOf(router)).toEqual([]);
    }
    // AND moving the clock past every deadline reverts nothing
    routerClockAheadMs += CONFIRM_WITHIN_MS;
    for (const router of ROUTERS) {
      expect(stack.simulated.isOnline(router.routerId)).toBe(true);
      await stack.simulated.schedulerIdle(router.routerId);
      expect(await exportOf(router)).toContain("dst-port=23");
    }
  });
});
