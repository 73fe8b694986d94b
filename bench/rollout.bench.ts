/**
 * Issue 24's rollout benchmark: the same fleet (one section per router) deployed with plain `terraform apply`
 * against the service on loopback, once with every router at once and once in waves [1, "10%", "100%"] with a
 * read-only check after each wave, in the same run. The waves' overhead should be their own latency (one
 * confirmation round per wave, plus one check request per router), never a per-router cost. Default settings
 * (issue 24): 100 routers, the constructs' default express, the service's default tick; the rate limit is
 * raised so that the figure is the waves' latency rather than the spec's 60 requests a minute (bench/
 * fleet-defaults.bench.ts measures that bound). ROLLOUT_ROUTERS sets the size. ROLLOUT_CLI replaces the command the provisioners run (by default this checkout's bin/routerjobs.js),
 * for a private copy of the built CLI when other runs rebuild dist/ in the same tree.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { startLocalStack } from "../src/demo/local-stack.js";
import { checks, Fleet, type FleetRouter, type RolloutProps } from "../src/deploy/constructs/index.js";
import { locateTerraform, runGroup } from "../src/deploy/terraform/terraform.js";
import { resolveConfig } from "../src/service/config.js";
import { type BenchReport, mustSucceed, round } from "./harness.js";

const ROUTERS = Number(process.env.ROLLOUT_ROUTERS ?? 100);
const RATE = { count: 600, windowMs: 1000 };
/** The service's own default: the jobs are express (the constructs' default), so none waits for it. */
const TICK_MS = resolveConfig({ database: "memory://" }).tickMs;

interface Result {
  readonly seconds: number;
  readonly requests: number;
  readonly completed: number;
}

export async function run(): Promise<BenchReport> {
  const { binary } = await locateTerraform();
  const flat = await deploy(binary, undefined);
  const waved = await deploy(binary, {
    waves: [1, "10%", "100%"],
    verify: checks.interfaceRunning("ether1"),
  });
  const ratio = waved.seconds / flat.seconds;
  const perWave = (waved.seconds - flat.seconds) / 3;
  return {
    title: `deploy a ${ROUTERS}-router fleet in waves [1, 10%, 100%] vs all at once`,
    metrics: {
      flatSeconds: round(flat.seconds, 2),
      wavedSeconds: round(waved.seconds, 2),
      ratio: round(ratio, 2),
      overheadPerWaveSeconds: round(perWave, 2),
      flatRequests: flat.requests,
      wavedRequests: waved.requests,
    },
    lines: [
      `${ROUTERS} routers x 1 section, terraform -parallelism=10, tick ${TICK_MS} ms, limit ${RATE.count}/1s`,
      `all at once ${round(flat.seconds, 1)} s, ${flat.completed} jobs completed, ${flat.requests} API requests`,
      `in 3 waves  ${round(waved.seconds, 1)} s, ${waved.completed} jobs completed, ${waved.requests} API requests (+${waved.requests - flat.requests}: one check per router)`,
      `ratio ${round(ratio, 2)}; overhead ${round(perWave, 2)} s per wave (a confirmation round and the checks)`,
    ],
  };
}

async function deploy(terraform: string, rollout: RolloutProps<FleetRouter> | undefined): Promise<Result> {
  const dir = await mkdtemp(join(tmpdir(), "rj-bench-rollout-"));
  const routers = Array.from({ length: ROUTERS }, (_, index) => ({
    id: randomUUID(),
    name: `r${index + 1}`,
  }));
  const stack = await startLocalStack({ dir, routers, tickMs: TICK_MS, rateLimit: RATE, receiver: false });
  try {
    const outdir = join(dir, "out");
    const app = new App({ outdir });
    const tf = new TerraformStack(app, "fleet");
    const stackDir = join(outdir, "stacks", "fleet");
    new LocalBackend(tf, { path: join(stackDir, "terraform.tfstate") });
    new Fleet(tf, "fleet", {
      routers: routers.map((router) => ({ name: router.name, routerId: router.id })),
      cli: process.env.ROLLOUT_CLI ?? (stack.env.ROUTERJOBS_CLI as string),
      waitFor: "poll",
      sections: (router) => [{ name: "identity", script: `/system identity set name=${router.name}` }],
      ...(rollout ? { rollout } : {}),
    });
    app.synth();
    const env = stack.env;
    await mustSucceed(
      runGroup(terraform, ["init", "-input=false", "-no-color"], { cwd: stackDir, env }).done,
    );
    const started = performance.now();
    await mustSucceed(
      runGroup(terraform, ["apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=10"], {
        cwd: stackDir,
        env,
      }).done,
    );
    const seconds = (performance.now() - started) / 1000;
    const { rows } = await stack.service.app.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE status = 'completed'",
    );
    const requests = [...stack.service.app.admittedRequests.values()].reduce((a, b) => a + b, 0);
    return { seconds, requests, completed: rows[0]?.n ?? 0 };
  } finally {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  }
}
