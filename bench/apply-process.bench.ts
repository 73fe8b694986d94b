/**
 * Issue 20: the cost of ONE `routerjobs apply` process, the unit Terraform pays once per declared script.
 * A real apply of one express job (list, submit with a backup, poll until completed) against the service on
 * loopback (TLS, simulated router), alternated N times with `node -e 0`. Goal: <= 0.15 s CPU and <= 60 MiB.
 *
 * How it measures: each child runs under a tiny wrapper that forks, execs the child and reaps it with
 * `wait4(2)` (Python's `os.wait4`, /usr/bin/python3 when present): the kernel's own accounting of that child,
 * user + system CPU to the microsecond and its peak RSS (`ru_maxrss`), nothing of the wrapper or of this
 * process. GNU time prints the same numbers rounded to 10 ms; /proc cannot be read after the child is gone.
 * The service runs in this process, so its CPU is not counted; the children share the two cores with it.
 *
 * `BENCH_NODE=/path/to/node` runs the children with another Node (the service stays on this one);
 * `APPLY_RUNS=N` changes the number of runs per variant (default 20).
 *
 * Each run also times apply with its code cache turned off (NODE_DISABLE_COMPILE_CACHE=1); the cache lives in
 * this run's folder, written by the warm-up apply as by a deploy's first.
 *
 * Last measured (2026-11-29, 20 runs, medians; without the code cache, then node -e 0, in brackets): Node 20.20
 * 0.195 s, 58.8 MiB (0.231 s; 0.082 s, 39.3 MiB); Node 22.23 0.133 s, 64.3 MiB (0.168 s; 0.028 s, 42.5 MiB). The
 * machine's speed moves: the same day `node -e 0` took 0.08-0.12 s on Node 20. Later, on a faster hour (10 runs):
 * Node 20 0.138 s, 58.7 MiB (0.172 s; 0.062 s, 39.4 MiB); Node 22 0.115 s, 64.5 MiB (0.156 s; 0.030 s, 42.1 MiB);
 * Node 24 0.149 s, 69.2 MiB (0.174 s; 0.033 s, 42.2 MiB): CPU met on all three, memory on Node 20. Session 22
 * (20 / 10 / 10 runs): Node 20 0.146 s, 58.7 MiB; Node 22 0.110 s, 64.6 MiB; Node 24 0.116 s, 69.1 MiB (no flag
 * or malloc setting moved Node 24's: the young generation's size, one malloc arena, one V8 worker thread). Before the first round: Node 20
 * 0.33 s, 108 MiB. CPU met on Node 22 that run, memory on Node 20; on Node 22 TLS and undici alone (three
 * requests on the HTTP core, same V8 settings) take 57.8 MiB. docs/decisions.md has each step and what is left.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jobKey } from "../src/contract/apply-job.js";
import { PACKAGE_ROOT, startLocalStack } from "../src/demo/local-stack.js";
import { type BenchReport, percentile, round } from "./harness.js";

const RUNS = Number(process.env.APPLY_RUNS ?? 20);
const NODE = process.env.BENCH_NODE ?? process.execPath;
const BIN = join(PACKAGE_ROOT, "bin", "routerjobs.js");
const GOAL_CPU_S = 0.15;
const GOAL_RSS_MIB = 60;
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

/** Forks, execs argv[2:], reaps with wait4 and writes {status, cpu, rss} to argv[1]. */
const WAIT4 = `
import json, os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    json.dump({"status": os.waitstatus_to_exitcode(status), "userS": usage.ru_utime,
               "systemS": usage.ru_stime, "maxRssKiB": usage.ru_maxrss}, out)
`;

interface Usage {
  readonly status: number;
  readonly userS: number;
  readonly systemS: number;
  readonly maxRssKiB: number;
}

export async function run(): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), "rj-bench-apply-"));
  const routerId = randomUUID();
  const stack = await startLocalStack({
    dir,
    routers: [{ id: routerId, name: "edge-1" }],
    rateLimit: { count: 1000, windowMs: 1000 },
    receiver: false,
  });
  const wrapper = join(dir, "wait4.py");
  await writeFile(wrapper, WAIT4);
  const measure = async (args: readonly string[], env: NodeJS.ProcessEnv): Promise<Usage> => {
    const out = join(dir, `usage-${randomUUID()}.json`);
    const stderr: Buffer[] = [];
    const child = spawn(PYTHON, [wrapper, out, NODE, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    await new Promise((resolve, reject) => child.on("close", resolve).on("error", reject));
    const usage = JSON.parse(await readFile(out, "utf8")) as Usage;
    if (usage.status !== 0)
      throw new Error(`node ${args.join(" ")} exited ${usage.status}: ${Buffer.concat(stderr).toString()}`);
    return usage;
  };
  const applyEnv = (index: number): NodeJS.ProcessEnv => {
    const definition = {
      phase: "create" as const,
      router_id: routerId,
      description: `bench identity ${index}`,
      script: `/system identity set name=edge-${index}`,
      make_backup: true,
      express_execute: true,
      needs_acknowledgement: true,
    };
    const job = {
      version: 1,
      resource: `bench/edge-1/identity-${index}`,
      wait_for: "poll",
      timeout_ms: 60_000,
      ...definition,
      job_key: jobKey(definition),
    };
    // The code cache in this run's folder: the warm-up apply writes it, as a deploy's first apply does.
    return {
      ...stack.env,
      ROUTERJOBS_JOB: JSON.stringify(job),
      ROUTERJOBS_INSTANCE_ID: randomUUID(),
      NODE_COMPILE_CACHE: dir,
    };
  };
  const bare: Usage[] = [];
  const apply: Usage[] = [];
  const uncached: Usage[] = [];
  try {
    // One of each first: the page cache, the service's first-request paths and apply's code cache are warm
    // for every sample.
    await measure(["-e", "0"], process.env);
    await measure([BIN, "apply"], applyEnv(0));
    for (let i = 1; i <= RUNS; i++) {
      bare.push(await measure(["-e", "0"], process.env));
      apply.push(await measure([BIN, "apply"], applyEnv(2 * i - 1)));
      uncached.push(await measure([BIN, "apply"], { ...applyEnv(2 * i), NODE_DISABLE_COMPILE_CACHE: "1" }));
    }
  } finally {
    await stack.close();
    await rm(dir, { recursive: true, force: true });
  }
  const cpu = (samples: Usage[]) =>
    percentile(
      samples.map((u) => u.userS + u.systemS),
      50,
    );
  const rss = (samples: Usage[]) =>
    percentile(
      samples.map((u) => u.maxRssKiB / 1024),
      50,
    );
  const [applyCpu, bareCpu, applyRss, bareRss] = [cpu(apply), cpu(bare), rss(apply), rss(bare)];
  const [uncachedCpu, uncachedRss] = [cpu(uncached), rss(uncached)];
  const version = await nodeVersion();
  return {
    title: `one routerjobs apply process vs node -e 0 (${version})`,
    metrics: {
      childNode: version,
      runs: RUNS,
      applyCpuP50S: round(applyCpu, 3),
      applyUserP50S: round(
        percentile(
          apply.map((u) => u.userS),
          50,
        ),
        3,
      ),
      applyMaxRssP50MiB: round(applyRss, 1),
      applyWithoutCodeCacheCpuP50S: round(uncachedCpu, 3),
      applyWithoutCodeCacheMaxRssP50MiB: round(uncachedRss, 1),
      nodeBareCpuP50S: round(bareCpu, 3),
      nodeBareMaxRssP50MiB: round(bareRss, 1),
      cpuRatio: round(applyCpu / bareCpu),
      rssRatio: round(applyRss / bareRss),
      cpuGoalMet: applyCpu <= GOAL_CPU_S,
      rssGoalMet: applyRss <= GOAL_RSS_MIB,
    },
    lines: [
      `children on ${version}; ${RUNS} runs each, alternated; CPU = user + system from wait4, RSS = ru_maxrss`,
      `apply (one express job, polled): CPU p50 ${round(applyCpu, 3)} s (goal <= ${GOAL_CPU_S}: ${applyCpu <= GOAL_CPU_S ? "met" : "NOT met"}), max RSS p50 ${round(applyRss, 1)} MiB (goal <= ${GOAL_RSS_MIB}: ${applyRss <= GOAL_RSS_MIB ? "met" : "NOT met"})`,
      `apply without its code cache (NODE_DISABLE_COMPILE_CACHE=1): CPU p50 ${round(uncachedCpu, 3)} s, max RSS p50 ${round(uncachedRss, 1)} MiB`,
      `node -e 0: CPU p50 ${round(bareCpu, 3)} s, max RSS p50 ${round(bareRss, 1)} MiB; ratios: CPU ${round(applyCpu / bareCpu)}, RSS ${round(applyRss / bareRss)}`,
    ],
  };
}

async function nodeVersion(): Promise<string> {
  const child = spawn(NODE, ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  await new Promise((resolve) => child.on("close", resolve));
  return `node ${text.trim()}`;
}
