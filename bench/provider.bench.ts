/**
 * The Terraform provider against Terraform's own floor: a fleet of 30 routers x 1 script applied by a plain
 * `terraform apply` through `routerjobs_script` (one provider process for the run), against the same 30
 * resources as `terraform_data` with a shell no-op `local-exec` provisioner. The service at its default tick
 * and the spec's rate limit (PROVIDER_RATE changes it); terraform at -parallelism=10. Goal: at most 1.3x the
 * no-op fleet plus the rate budget's bound, requests per job unchanged (2 polling).
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
const RATE = parseRateLimit(process.env.PROVIDER_RATE ?? "60/1m");
const TICK_MS = resolveConfig({ database: "memory://" }).tickMs;
const GOAL_RATIO = 1.3;

type Mode = "provider" | "shell no-op";

async function apply(
  terraform: string,
  mode: Mode,
): Promise<{ seconds: number; completed: number; requests: number }> {
  const dir = await mkdtemp(join(tmpdir(), "rj-bench-provider-"));
  const routers = Array.from({ length: ROUTERS }, (_, index) => ({
    id: randomUUID(),
    name: `r${index + 1}`,
  }));
  const stack = await startLocalStack({ dir, routers, tickMs: TICK_MS, rateLimit: RATE, receiver: false });
  try {
    const installed = await installProvider({
      dir: join(dir, "mirror"),
      version: VERSION,
      providerMain: join(PACKAGE_ROOT, "dist", "deploy", "provider", "main.js"),
    });
    await writeFile(join(dir, "cli.tfrc"), installed.cliConfig);
    const work = join(dir, "work");
    const resources = routers.map((router) =>
      mode === "provider"
        ? `resource "routerjobs_script" "${router.name}" {\n  router_id   = "${router.id}"\n  description = "identity"\n  script      = "/system identity set name=${router.name}"\n}\n`
        : `resource "terraform_data" "${router.name}" {\n  provisioner "local-exec" {\n    command = "true"\n  }\n}\n`,
    );
    await mkdir(work, { recursive: true });
    await writeFile(
      join(work, "main.tf"),
      (mode === "provider" ? `${installed.requiredProviders}provider "routerjobs" {}\n` : "") +
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
  const floor = await apply(binary, "shell no-op");
  const provider = await apply(binary, "provider");
  const budgetSeconds = (Math.max(0, provider.requests - RATE.count) / RATE.count) * (RATE.windowMs / 1000);
  const bound = floor.seconds + budgetSeconds;
  const ratio = provider.seconds / bound;
  const perJob = provider.requests / Math.max(1, provider.completed);
  return {
    title: `a ${ROUTERS}-job fleet through the provider against a shell no-op provisioner fleet`,
    metrics: {
      noopSeconds: round(floor.seconds, 2),
      providerSeconds: round(provider.seconds, 2),
      boundSeconds: round(bound, 2),
      ratio: round(ratio, 3),
      requestsPerJob: round(perJob, 3),
    },
    lines: [
      `${ROUTERS} routers x 1 script, tick ${TICK_MS / 1000} s, limit ${RATE.count} per ${RATE.windowMs / 1000} s, terraform -parallelism=10 (shared 2-core machine)`,
      `shell no-op  terraform_data + local-exec "true": ${round(floor.seconds, 1)} s`,
      `provider     ${provider.completed}/${ROUTERS} completed in ${round(provider.seconds, 1)} s; ${round(perJob, 2)} requests per job; vs no-op + budget bound ${round(bound, 1)} s: ${round(ratio, 2)}x (goal <= ${GOAL_RATIO}: ${ratio <= GOAL_RATIO ? "met" : "NOT met"})`,
    ],
  };
}
