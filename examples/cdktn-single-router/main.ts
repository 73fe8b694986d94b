/**
 * CDK Terrain (cdktn) app: `cdktn synth` (or `npx tsx main.ts`) writes cdktf.out/stacks/single-router/cdk.tf.json.
 * The same stack as ../single-router, whose cdktf app differs from this one only in the import below: the
 * constructs take the framework of the stack they are created in. cdktn-cli 0.24 still reads `cdktf.json` and
 * still writes `cdktf.out`. It needs Node >= 22.19; this file itself runs on Node 20 as well.
 */
import { App, TerraformStack } from "cdktn";
import { buildSingleRouter } from "../single-router/router.js";

const routerId = process.env.ROUTER_ID;
if (!routerId) {
  console.error("ROUTER_ID is not set: export the router's id at the service (a lowercase UUID)");
  process.exit(2);
}

const app = new App();
const stack = new TerraformStack(app, "single-router");
buildSingleRouter(stack, { routerId, cli: process.env.ROUTERJOBS_CLI || undefined });
app.synth();
