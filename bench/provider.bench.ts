/**
 * The Terraform provider against Terraform's own floor: a fleet of 30 routers x 1 script applied by a plain
 * `terraform apply` through `routerjobs_script` (one provider process for the run), against the same 30
 * resources as `terraform_data` with a shell no-op `local-exec` provisioner; confirmed by polling, then by the
 * receiver. The service at its default tick and the spec's rate limit (PROVIDER_RATE changes it; PROVIDER_ROUTERS
 * and PROVIDER_SCRIPTS the fleet's shape); terraform at -parallelism=10. Goal: at most 1.3x the no-op fleet
 * plus the rate budget's bound, requests per job as `routerjobs deploy` spends them (2 polling, 1 with the
 * receiver) beside one job-list read per router.
 */
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../src/client/version.js";
import { parseRateLimit } from "../src/contract/duration.js";
import { PACKAGE_ROOT, startLocalStack } from "../src/demo/local-stack.js";
import { installProvider } from "../src/deploy/provider/install.js";
import { locateTerraform, runGroup } from "../src/deploy/terraform/terraform.js";
import { resolveConfig } from "../src/service/config.js";
import { type BenchReport, mustSucceed, round } from "./harness.js";

const ROUTERS = Number(process.env.PROVIDER_ROUTERS ?? 30);
const SCRIPTS = Number(process.env.PROVIDER_SCRIPTS ?? 1);
const RATE = parseRateLimit(process.env.PROVIDER_RATE ?? "60/1m");
const TICK_MS = resolveConfig({ database: "memory://" }).tickMs;
const GOAL_RATIO = 1.3;

type Mode = "poll" | "receiver" | "shell no-op";

/** The provider's runs: each way of confirming, with the twin in the plan (the default) and without. */
const RUNS = [
  { mode: "poll", twin: true },
  { mode: "receiver", twin: true },
  { mode: "poll", twin: false },
  { mode: "receiver", twin: false },
] as const;

async function apply(
  terraform: string,
  mode: Mode,
  twin = true,
): Promise<{ seconds: number; completed: number; requests: number }> {
  const dir = await mkdtemp(join(tmpdir(), "rj-bench-provider-"));
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
    const installed = await installProvider({
      dir: join(dir, "mirror"),
      version: VERSION,
      providerMain: join(PACKAGE_ROOT, "dist", "deploy", "provider", "main.js"),
    });
    await writeFile(join(dir, "cli.tfrc"), installed.cliConfig);
    const work = join(dir, "work");
    const resources = routers.flatMap((router) =>
      Array.from({ length: SCRIPTS }, (_, index) =>
        mode === "shell no-op"
          ? `resource "terraform_data" "${router.name}_${index}" {\n  provisioner "local-exec" {\n    command = "true"\n  }\n}\n`
          : `resource "routerjobs_script" "${router.name}_${index}" {\n  router_id   = "${router.id}"\n  description = "identity ${index}"\n  script      = "/system identity set name=${router.name}-${index}"\n}\n`,
      ),
    );
    await mkdir(work, { recursive: true });
    await writeFile(
      join(work, "main.tf"),
      (mode === "shell no-op"
        ? ""
        : `${installed.requiredProviders}provider "routerjobs" {\n  plan_twin = ${twin}\n}\n`) +
        resources.join(""),
    );
    const env = { ...stack.env, TF_CLI_CONFIG_FILE: join(dir, "cli.tfrc") };
    await mustSucceed(runGroup(terraform, ["init", "-input=false", "-no-color"], { cwd: work, env }).done);
    const before = [...stack.service.app.admittedRequests.values()].reduce((a, b) => a + b, 0);
    const started = performance.now();
    await mustSucceed(
      runGroup(terraform, ["apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=10"], {
        cwd: work,
        env,
      }).done,
    );
    const seconds = (performance.now() - started) / 1000;
    const after = [...stack.service.app.admittedRequests.values()].reduce((a, b) => a + b, 0);
    const { rows } = await stack.service.app.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE status = 'completed'",
    );
    return { seconds, completed: rows[0]?.n ?? 0, requests: after - before };
  } finally {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchReport> {
  const { binary } = await locateTerraform();
  const jobs = ROUTERS * SCRIPTS;
  const floor = await apply(binary, "shell no-op");
  const lines = [
    `${ROUTERS} routers x ${SCRIPTS} script(s), tick ${TICK_MS / 1000} s, limit ${RATE.count} per ${RATE.windowMs / 1000} s, terraform -parallelism=10 (shared 2-core machine)`,
    `shell no-op  terraform_data + local-exec "true": ${round(floor.seconds, 1)} s`,
  ];
  const metrics: BenchReport["metrics"] = { noopSeconds: round(floor.seconds, 2) };
  for (const { mode, twin } of RUNS) {
    const name = `${mode}${twin ? "" : "NoTwin"}`;
    const provider = await apply(binary, mode, twin);
    // Every request spends the key's budget (the job-list reads too): the window is sliding, so the first
    // `count` go at once and each further `count` takes one window.
    const budgetSeconds = (Math.max(0, provider.requests - RATE.count) / RATE.count) * (RATE.windowMs / 1000);
    const bound = floor.seconds + budgetSeconds;
    const ratio = provider.seconds / bound;
    // As the fleet bench counts `routerjobs deploy`: the jobs' own requests, beside one list read per router
    // (and, with the twin, one export read per router in the plan).
    const perRouter = twin ? 2 : 1;
    const perJob = (provider.requests - perRouter * ROUTERS) / Math.max(1, provider.completed);
    Object.assign(metrics, {
      [`${name}Seconds`]: round(provider.seconds, 2),
      [`${name}BoundSeconds`]: round(bound, 2),
      [`${name}Ratio`]: round(ratio, 3),
      [`${name}Requests`]: provider.requests,
      [`${name}RequestsPerJob`]: round(perJob, 3),
    });
    lines.push(
      `provider ${mode.padEnd(8)} ${twin ? "twin   " : "no twin"} ${provider.completed}/${jobs} completed in ${round(provider.seconds, 1)} s; ${provider.requests} requests: ${round(perJob, 2)} per job + ${perRouter * ROUTERS} per router (the job list${twin ? ", the plan's export" : ""}); vs no-op + budget bound ${round(bound, 1)} s: ${round(ratio, 2)}x (goal <= ${GOAL_RATIO}: ${ratio <= GOAL_RATIO ? "met" : "NOT met"})`,
    );
  }
  return {
    title: `a ${jobs}-job fleet through the provider against a shell no-op provisioner fleet`,
    metrics,
    lines,
  };
}
