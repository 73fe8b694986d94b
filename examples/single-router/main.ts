/**
 * cdktf app: `cdktf synth` (or `npx tsx main.ts`) writes cdktf.out/stacks/single-router/cdk.tf.json.
 * The router id comes from ROUTER_ID; the service URL and token are read by `routerjobs apply` from the
 * environment of `terraform apply`, never from here.
 */
import { App, TerraformStack } from "cdktf";
import { buildSingleRouter } from "./router.js";

const routerId = process.env.ROUTER_ID;
if (!routerId) {
  console.error("ROUTER_ID is not set: export the router's id at the service (a lowercase UUID)");
  process.exit(2);
}

const app = new App();
const stack = new TerraformStack(app, "single-router");
buildSingleRouter(stack, { routerId, cli: process.env.ROUTERJOBS_CLI || undefined });
app.synth();
