/**
 * cdktf app for the office fleet: `cdktf synth` (or `npx tsx main.ts`) writes
 * cdktf.out/stacks/office-fleet/cdk.tf.json. The routers come from ROUTERJOBS_FLEET (JSON) or ./routers.json:
 *   [{ "id": "<uuid>", "name": "office-1", "site": "berlin", "lanPrefix": "192.168.10" }, ...]
 * FLEET_VARIANT=changed synthesizes the configuration after one edit (see CHANGED in fleet.ts).
 * The first router is a canary: the others change only once its jobs completed. FLEET_CHECK=1 also checks the
 * canary (uplink running, LAN bridge present) before the others start: one synchronous request per router.
 */
import { readFileSync } from "node:fs";
import { App, TerraformStack } from "cdktf";
import { buildOfficeFleet, type OfficeRouter } from "./fleet.js";

function readRouters(): OfficeRouter[] {
  const text = process.env.ROUTERJOBS_FLEET ?? readFileSync(new URL("routers.json", import.meta.url), "utf8");
  const routers: unknown = JSON.parse(text);
  if (!Array.isArray(routers)) throw new Error("the fleet must be a JSON array of routers");
  routers.forEach((router, index) => {
    for (const field of ["id", "name", "lanPrefix"]) {
      if (typeof router?.[field] !== "string") throw new Error(`router ${index}: ${field} must be a string`);
    }
  });
  return routers as OfficeRouter[];
}

const variant = process.env.FLEET_VARIANT === "changed" ? "changed" : "initial";
const app = new App();
const stack = new TerraformStack(app, "office-fleet");
buildOfficeFleet(stack, {
  routers: readRouters(),
  variant,
  cli: process.env.ROUTERJOBS_CLI || undefined,
  canary: true,
  check: process.env.FLEET_CHECK === "1",
});
app.synth();
