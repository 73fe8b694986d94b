/**
 * What the fleet end-to-end tests share (rollouts, rollback, safe change): the service on loopback with TLS and
 * simulated routers (the demo's local stack), a Terraform working directory, a client of the test's own, the
 * built CLI snapshotted for the provisioners, and a Fleet synthesized with cdktf into that directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { RouterJobsClient } from "../../src/client/client.js";
import { type LocalStack, type LocalStackOptions, startLocalStack } from "../../src/demo/local-stack.js";
import { Fleet, type FleetProps, type FleetRouter } from "../../src/deploy/constructs/index.js";
import { snapshotCli } from "../helpers/cli-snapshot.js";
import { TerraformDir } from "../helpers/terraform.js";

/** The rate limit of the stack and the test's client: high enough that no test waits for its budget. */
const RATE_LIMIT = { count: 600, windowMs: 1000 };

export interface FleetHarness {
  readonly stack: LocalStack;
  readonly tf: TerraformDir;
  readonly client: RouterJobsClient;
  /**
   * Synthesizes `routers` as one Fleet (polling, express jobs, the snapshotted CLI) with `props` into the
   * Terraform directory, the state beside it.
   */
  synthesize(props: Omit<FleetProps<FleetRouter>, "routers" | "cli">): void;
  close(): Promise<void>;
}

export async function startFleetHarness(
  name: string,
  terraform: string,
  routers: readonly FleetRouter[],
  options: Omit<LocalStackOptions, "dir" | "routers"> = {},
): Promise<FleetHarness> {
  const cli = snapshotCli(`rj-${name}-cli`);
  const work = mkdtempSync(join(tmpdir(), `rj-${name}-`));
  const stack = await startLocalStack({
    dir: work,
    routers: routers.map((router) => ({ id: router.routerId, name: router.name })),
    tickMs: 50,
    rateLimit: RATE_LIMIT,
    receiver: false,
    ...options,
  });
  const tf = new TerraformDir(terraform, stack.env);
  const client = new RouterJobsClient({
    baseUrl: stack.service.url,
    token: stack.token,
    ca: stack.service.ca,
    budgetDir: join(work, "test-budget"),
    rateLimit: RATE_LIMIT,
  });
  return {
    stack,
    tf,
    client,
    synthesize(props) {
      const outdir = mkdtempSync(join(tmpdir(), `rj-${name}-out-`));
      const app = new App({ outdir });
      const scope = new TerraformStack(app, "office");
      new LocalBackend(scope, { path: join(tf.dir, "terraform.tfstate") });
      new Fleet(scope, "fleet", {
        routers,
        cli: cli.cli,
        waitFor: "poll",
        expressExecute: true,
        ...props,
      });
      app.synth();
      tf.use(join(outdir, "stacks", "office", "cdk.tf.json"));
      rmSync(outdir, { recursive: true, force: true });
    },
    async close() {
      cli.remove();
      await client.close();
      await stack.close();
      tf.remove();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
