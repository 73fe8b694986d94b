/** examples/office-fleet's canary wave: the canary goes first, and the check between the waves is sound. */
import { TerraformStack, Testing } from "cdktf";
import { describe, expect, it } from "vitest";
import { buildOfficeFleet, type OfficeRouter } from "../../../examples/office-fleet/fleet.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { testingApp } from "../../helpers/scratch.js";

const ROUTERS: OfficeRouter[] = [1, 2, 3].map((n) => ({
  id: `0ffice00-0000-4000-8000-00000000000${n}`.replace("0ffice00", "0f000000"),
  name: `office-${n}`,
  lanPrefix: `10.${n}.0`,
}));

describe("examples/office-fleet with a canary", () => {
  it("sends the canary first and checks it with a script that passes once the sections ran", async () => {
    // GIVEN the example fleet with its canary wave and check
    const stack = new TerraformStack(testingApp(Testing), "office-fleet");
    const fleet = buildOfficeFleet(stack, { routers: ROUTERS, canary: true, check: true });
    Testing.synth(stack);
    // THEN office-1 is wave 1 of 2, and one gate after each wave carries the check
    expect(fleet.gates.map((gate) => gate.check?.routers.map((router) => router.name))).toEqual([
      ["office-1"],
      ["office-2", "office-3"],
    ]);
    const script = fleet.gates[0]?.check?.script as string;
    // AND the check fails on a fresh router (no LAN bridge yet) and passes once its sections ran
    const device = new SimulatedRouter({ name: "MikroTik", seedText: "office-1" });
    expect(await device.runScript(script)).toMatchObject({
      ok: false,
      error: expect.stringContaining("bridge-lan is missing"),
    });
    for (const section of fleet.configs.get("office-1")?.sections ?? []) {
      expect(await device.runScript(section.job.script)).toMatchObject({ ok: true });
    }
    expect(await device.runScript(script)).toMatchObject({ ok: true });
  });
});
