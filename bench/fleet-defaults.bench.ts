/**
 * Issue 20's fleet goal, at the default settings of every part: 50 routers x 2 sections (100 jobs) through
 * `routerjobs deploy` with the real terraform at -parallelism=10, the service's default tick (10 s), the
 * constructs' default express (left to apply, which submits express), apply's default poll schedule and the
 * spec's rate limit of 60 requests a minute on both sides (FLEET_RATE, e.g. `60/10s`, changes it). Baseline: the
 * same fleet with no-op provisioners (Terraform's own cost). Goal: wall <= 1.5 x (no-op + rate-budget bound),
 * <= 2.2 requests per job polling, 1.0 through the receiver.
 */
import { randomUUID } from "node:crypto";
import { cp, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { parseRateLimit } from "../src/contract/duration.js";
import { PACKAGE_ROOT, startLocalStack } from "../src/demo/local-stack.js";
import { RouterConfig } from "../src/deploy/constructs/index.js";
import { locateTerraform, runGroup } from "../src/deploy/terraform/terraform.js";
import { resolveConfig } from "../src/service/config.js";
import { type BenchReport, mustSucceed, round } from "./harness.js";

const ROUTERS = Number(process.env.FLEET_ROUTERS ?? 50);
const SECTIONS = 2;
const RATE = parseRateLimit(process.env.FLEET_RATE ?? "60/1m");
/** The service's own default, which the demo stack does not use (it ticks every second). */
const TICK_MS = resolveConfig({ database: "memory://" }).tickMs;
const GOAL_RATIO = 1.5;

type Mode = "poll" | "receiver" | "no-op";

interface ModeResult {
  readonly mode: Mode;
  readonly jobs: number;
  readonly completed: number;
  readonly express: number;
  /** The jobs' own requests: every admitted request less deploy's reconciliation (one per router). */
  readonly requests: number;
  readonly rejected: number;
  readonly seconds: number;
}

/**
 * The CLI as built when the bench starts, copied aside: other work in the same tree rebuilds dist/bundle
 * (deleting it first), which would pull the bundle from under a deploy that runs for minutes.
 */
async function privateCli(): Promise<{ bin: string; close: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "rj-bench-cli-"));
  await cp(join(PACKAGE_ROOT, "bin"), join(dir, "bin"), { recursive: true });
  await cp(join(PACKAGE_ROOT, "dist", "bundle"), join(dir, "dist", "bundle"), { recursive: true });
  await cp(join(PACKAGE_ROOT, "package.json"), join(dir, "package.json"));
  await symlink(join(PACKAGE_ROOT, "node_modules"), join(dir, "node_modules"));
  return { bin: join(dir, "bin", "routerjobs.js"), close: () => rm(dir, { recursive: true, force: true }) };
}

export async function run(): Promise<BenchReport> {
  const { binary } = await locateTerraform();
  const cli = await privateCli();
  let baseline: ModeResult;
  let results: ModeResult[];
  try {
    baseline = await deploy(binary, "no-op", cli.bin);
    results = [await deploy(binary, "poll", cli.bin), await deploy(binary, "receiver", cli.bin)];
  } finally {
    await cli.close();
  }
  const rate = `${RATE.count} per ${RATE.windowMs / 1000} s`;
  const lines: string[] = [
    `fleet of ${ROUTERS} routers x ${SECTIONS} sections at the defaults: tick ${TICK_MS / 1000} s, express left to apply, limit ${rate}, terraform -parallelism=10 (shared 2-core machine)`,
    `no-op    the same apply with provisioners that only start node: ${round(baseline.seconds, 1)} s`,
  ];
  const metrics: BenchReport["metrics"] = { noopApplySeconds: round(baseline.seconds, 2) };
  for (const result of results) {
    const perJob = result.requests / result.completed;
    const goal = result.mode === "poll" ? 2.2 : 1.0;
    // Every request (the reconciliation's too) spends the key's budget: the deploy cannot beat that. The
    // window is sliding, so the first `count` go at once and each further `count` takes one window.
    const budgetSeconds =
      (Math.max(0, result.requests + ROUTERS - RATE.count) / RATE.count) * (RATE.windowMs / 1000);
    const bound = baseline.seconds + budgetSeconds;
    const ratio = result.seconds / bound;
    lines.push(
      `${result.mode.padEnd(8)} ${result.completed}/${result.jobs} completed (${result.express} express); ${round(perJob)} requests per job (goal <= ${goal}: ${perJob <= goal + 1e-9 ? "met" : "NOT met"}) + ${ROUTERS} for reconciliation; 429s ${result.rejected}`,
      `${"".padEnd(8)} deploy ${round(result.seconds, 1)} s vs no-op + budget bound ${round(bound, 1)} s (${round(budgetSeconds, 1)} s of budget): ${round(ratio, 2)}x (goal <= ${GOAL_RATIO}: ${ratio <= GOAL_RATIO ? "met" : "NOT met"})`,
    );
    Object.assign(metrics, {
      [`${result.mode}RequestsPerJob`]: round(perJob, 3),
      [`${result.mode}DeploySeconds`]: round(result.seconds, 2),
      [`${result.mode}BoundSeconds`]: round(bound, 2),
      [`${result.mode}Ratio`]: round(ratio, 3),
      [`${result.mode}429s`]: result.rejected,
    });
  }
  return { title: "deploy a 100-job fleet at the default settings", metrics, lines };
}

async function deploy(terraform: string, mode: Mode, bin: string): Promise<ModeResult> {
  const dir = await mkdtemp(join(tmpdir(), "rj-bench-defaults-"));
  const routers = Array.from({ length: ROUTERS }, (_, index) => ({
    id: randomUUID(),
    name: `r${index + 1}`,
  }));
  const stack = await startLocalStack({
    dir,
    routers,
    tickMs: TICK_MS,
    rateLimit: RATE,
    receiver: mode === "receiver",
  });
  try {
    const outdir = join(dir, "out");
    const app = new App({ outdir });
    const tf = new TerraformStack(app, "fleet");
    const stackDir = join(outdir, "stacks", "fleet");
    new LocalBackend(tf, { path: join(stackDir, "terraform.tfstate") });
    for (const [index, router] of routers.entries()) {
      // Every option at its default (no expressExecute, no waitFor): only the CLI is named.
      new RouterConfig(tf, router.name, {
        routerId: router.id,
        cli: mode === "no-op" ? `${process.execPath} -e 0` : `${process.execPath} ${bin}`,
        sections: [
          { name: "identity", script: `/system identity set name=${router.name}` },
          {
            name: "lan",
            script: `/ip address add address=10.${Math.floor(index / 200)}.${index % 200}.1/24 interface=ether2`,
          },
        ],
      });
    }
    app.synth();
    const env = { ...stack.env, ROUTERJOBS_CLI: `${process.execPath} ${bin}` };
    await mustSucceed(
      runGroup(terraform, ["init", "-input=false", "-no-color"], { cwd: stackDir, env }).done,
    );
    const started = performance.now();
    const apply =
      mode === "no-op"
        ? runGroup(terraform, ["apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=10"], {
            cwd: stackDir,
            env,
          })
        : runGroup(process.execPath, [bin, "deploy", "--dir", stackDir, "--", "-parallelism=10"], {
            cwd: stackDir,
            env,
          });
    await mustSucceed(apply.done);
    const seconds = (performance.now() - started) / 1000;
    const sum = (map: ReadonlyMap<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
    const { rows } = await stack.service.app.db.query<{ status: string; express: boolean; n: number }>(
      "SELECT status, express_execute AS express, count(*)::int AS n FROM jobs GROUP BY status, express_execute",
    );
    const count = (keep: (row: { status: string; express: boolean }) => boolean) =>
      rows.filter(keep).reduce((total, row) => total + row.n, 0);
    return {
      mode,
      jobs: count(() => true),
      completed: count((row) => row.status === "completed"),
      express: count((row) => row.express),
      requests: sum(stack.service.app.admittedRequests) - (mode === "no-op" ? 0 : routers.length),
      rejected: sum(stack.service.app.rateLimitedRequests),
      seconds,
    };
  } finally {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  }
}
