/**
 * Issue 5's deploy benchmark: a fleet of 50 routers (two sections each, so 100 jobs) deployed with the real
 * terraform at -parallelism=10 against the service on loopback, with the key's limit scaled to 60 per 1 s on
 * both sides. Once confirming by polling the job list, once through the receiver. Reports API requests per
 * confirmed job (goals <= 2.0 polling, <= 1.1 receiver), 429s (goal 0), and the wall time of the apply against
 * the lower bounds set by the rate budget and by the jobs' own chain (sections per router x scheduler tick).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { PACKAGE_ROOT, startLocalStack } from "../src/demo/local-stack.js";
import { RouterConfig } from "../src/deploy/constructs/index.js";
import { locateTerraform, runGroup } from "../src/deploy/terraform/terraform.js";
import { type BenchReport, mustSucceed, round } from "./harness.js";

const ROUTERS = Number(process.env.FLEET_ROUTERS ?? 50);
const SECTIONS = 2;
const RATE = { count: 60, windowMs: 1000 };
const TICK_MS = 200;
const BIN = join(PACKAGE_ROOT, "bin", "routerjobs.js");

type Mode = "poll" | "receiver" | "no-op";

interface ModeResult {
  readonly mode: Mode;
  readonly jobs: number;
  readonly completed: number;
  readonly requests: number;
  readonly reconcileRequests: number;
  readonly rejected: number;
  readonly seconds: number;
}

export async function run(): Promise<BenchReport> {
  const { binary } = await locateTerraform();
  // The baseline: the same stack whose provisioner only starts Node (`node -e 0`): terraform's own cost plus
  // 100 process starts, which on two cores is most of what a deploy costs besides waiting for the routers.
  const baseline = await deploy(binary, "no-op");
  const results: ModeResult[] = [];
  for (const mode of ["poll", "receiver"] as const) results.push(await deploy(binary, mode));
  const lines: string[] = [
    `fleet of ${ROUTERS} routers x ${SECTIONS} sections, terraform -parallelism=10, limit 60/1s, tick ${TICK_MS} ms`,
    `no-op    the same apply with a provisioner that only starts node: ${round(baseline.seconds, 1)} s`,
  ];
  const metrics: BenchReport["metrics"] = { noopApplySeconds: round(baseline.seconds, 2) };
  for (const result of results) {
    const perJob = result.requests / result.completed;
    const goal = result.mode === "poll" ? 2.0 : 1.1;
    const budgetBound = result.requests / RATE.count;
    // Sections of one router run one after another, each waiting at most a tick; routers run 10 at a time.
    const chainBound = (Math.ceil(ROUTERS / 10) * SECTIONS * TICK_MS) / 1000;
    const bound = Math.max(budgetBound, chainBound);
    lines.push(
      `${result.mode.padEnd(8)} ${result.completed}/${result.jobs} jobs completed; ${result.requests} API requests = ${round(perJob)} per job (goal <= ${goal}: ${perJob <= goal ? "met" : "NOT met"}) + ${result.reconcileRequests} for deploy's reconciliation (one per router); 429s ${result.rejected} (goal 0)`,
      `${"".padEnd(8)} apply ${round(result.seconds, 1)} s vs lower bound ${round(bound, 1)} s (budget ${round(budgetBound, 1)} s, job chain ${round(chainBound, 1)} s): ratio ${round(result.seconds / bound, 1)}; ${round(result.seconds / baseline.seconds, 1)}x the no-op apply`,
    );
    Object.assign(metrics, {
      [`${result.mode}RequestsPerJob`]: round(perJob, 3),
      [`${result.mode}429s`]: result.rejected,
      [`${result.mode}ApplySeconds`]: round(result.seconds, 2),
      [`${result.mode}LowerBoundSeconds`]: round(bound, 2),
      [`${result.mode}CompletedJobs`]: result.completed,
    });
  }
  return { title: "deploy a 50-router fleet with terraform", metrics, lines };
}

async function deploy(terraform: string, mode: Mode): Promise<ModeResult> {
  const dir = await mkdtemp(join(tmpdir(), "rj-bench-fleet-"));
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
      new RouterConfig(tf, router.name, {
        routerId: router.id,
        cli: mode === "no-op" ? `${process.execPath} -e 0` : (stack.env.ROUTERJOBS_CLI as string),
        waitFor: mode === "receiver" ? "receiver" : "poll",
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
    const env = stack.env;
    await mustSucceed(
      runGroup(terraform, ["init", "-input=false", "-no-color"], { cwd: stackDir, env }).done,
    );
    const started = performance.now();
    // The deploys go through `routerjobs deploy` (its reconciliation reads each router's job list once, and
    // hands the lists to the provisioners); the no-op baseline is Terraform's own cost, so plain apply.
    const apply =
      mode === "no-op"
        ? runGroup(terraform, ["apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=10"], {
            cwd: stackDir,
            env,
          })
        : runGroup(process.execPath, [BIN, "deploy", "--dir", stackDir, "--", "-parallelism=10"], {
            cwd: stackDir,
            env,
          });
    await mustSucceed(apply.done);
    const seconds = (performance.now() - started) / 1000;
    const counts = (map: ReadonlyMap<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
    const { rows } = await stack.service.app.db.query<{ status: string; n: number }>(
      "SELECT status, count(*)::int AS n FROM jobs GROUP BY status",
    );
    const jobs = rows.reduce((sum, row) => sum + row.n, 0);
    return {
      mode,
      jobs,
      completed: rows.find((row) => row.status === "completed")?.n ?? 0,
      // One job-list request per router is the deploy's reconciliation; the rest are the jobs' own.
      requests: counts(stack.service.app.admittedRequests) - (mode === "no-op" ? 0 : routers.length),
      reconcileRequests: mode === "no-op" ? 0 : routers.length,
      rejected: counts(stack.service.app.rateLimitedRequests),
      seconds,
    };
  } finally {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  }
}
