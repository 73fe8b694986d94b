/**
 * Client benchmarks.
 * 1. Shared rate budget: ten processes share one API key against a loopback service limited to 60 requests per
 *    window (window scaled to 1 s), each listing jobs as fast as the budget allows for ~6 s. Baseline: the most
 *    a sliding window can accept over the same span. Goals: zero 429s, utilisation >= 90%.
 * 2. Cold start: `node bin/routerjobs.js --version` against `node -e 0`, alternated in the same run.
 * The service is the tests' stand-in (test/client/helpers), until the real one is benchmarked too.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ROUTER_ID, startStandIn, TOKEN } from "../test/client/helpers/stand-in-service.js";
import { type BenchReport, maxInAnyWindow, percentile, round } from "./harness.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PROCESSES = 10;
const COUNT = 60;
const WINDOW_MS = 1000;
const RUN_MS = 6000;
const COLD_STARTS = 10;

export async function run(): Promise<BenchReport> {
  const load = `load average ${loadavg()
    .map((value) => round(value, 1))
    .join(" ")} on ${availableParallelism()} cores`;
  const disk = await sharedBudget(tmpdir(), "disk");
  // The budget's lock is a file created with O_EXCL (src/platform/fs/file-lock.ts): on a busy disk its create/unlink dominate. tmpfs shows
  // the algorithm without the disk; the default state directory is usually on disk.
  const memory = existsSync("/dev/shm") ? await sharedBudget("/dev/shm", "tmpfs") : undefined;
  const cold = coldStart();
  return {
    title: "client: shared rate budget and CLI cold start",
    metrics: { ...disk.metrics, ...memory?.metrics, ...cold.metrics },
    lines: [load, ...disk.lines, ...(memory?.lines ?? []), ...cold.lines],
  };
}

async function sharedBudget(base: string, label: string) {
  const service = await startStandIn({ rateLimit: { count: COUNT, windowMs: WINDOW_MS } });
  const dir = mkdtempSync(join(base, "rj-bench-budget-"));
  try {
    const children = Array.from({ length: PROCESSES }, () => startWorker(service.url, dir));
    // Start together once every process has loaded, so that start-up time does not count as idle budget.
    await Promise.all(children.map((child) => child.ready));
    const goAt = Date.now();
    for (const child of children) child.go();
    const workers = await Promise.all(children.map((child) => child.result));
    const all = service.requests.map((request) => request.at).sort((a, b) => a - b);
    const arrivals = all.filter((at) => at >= goAt && at < goAt + RUN_MS);
    const accepted = arrivals.length - service.counts.rateLimited;
    const windows = RUN_MS / WINDOW_MS;
    // The measure: accepted / (COUNT * windows). A sliding window also admits one burst of COUNT at the
    // start, so the strict ceiling is COUNT * (windows + 1); both are reported.
    const utilisation = accepted / (COUNT * windows);
    const capacity = COUNT * (Math.floor(windows) + 1);
    const failed = workers.reduce((sum, result) => sum + result.failures.length, 0);
    return {
      metrics: {
        [`${label}AcceptedRequests`]: accepted,
        [`${label}RateLimitedResponses`]: service.counts.rateLimited,
        [`${label}WorkerFailures`]: failed,
        [`${label}MaxInAnyWindow`]: maxInAnyWindow(all, WINDOW_MS),
        [`${label}BudgetUtilisationRatio`]: round(utilisation, 3),
        [`${label}OfStrictCeilingRatio`]: round(accepted / capacity, 3),
      },
      lines: [
        `budget file on ${label} (${dir}): ${PROCESSES} processes, one key, service limit ${COUNT}/${WINDOW_MS} ms, ${RUN_MS / 1000} s`,
        `accepted ${accepted} in ${round(windows)} windows; 429s ${service.counts.rateLimited} (goal 0); failures ${failed}; most in any window ${maxInAnyWindow(all, WINDOW_MS)} (limit ${COUNT})`,
        `budget utilisation ${round(utilisation * 100, 1)}% of ${COUNT}/window (goal >= 90%); ${round((accepted / capacity) * 100, 1)}% of the strict ceiling ${capacity}`,
      ],
    };
  } finally {
    await service.close();
  }
}

function coldStart() {
  const cli: number[] = [];
  const bare: number[] = [];
  const time = (args: string[]) => {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: "ignore" });
    if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < COLD_STARTS; i++) {
    bare.push(time(["-e", "0"]));
    cli.push(time(["bin/routerjobs.js", "--version"]));
  }
  const cliMs = percentile(cli, 50);
  const bareMs = percentile(bare, 50);
  return {
    metrics: {
      cliVersionP50Ms: round(cliMs),
      nodeBareP50Ms: round(bareMs),
      coldStartRatio: round(cliMs / bareMs),
    },
    lines: [
      `cold start p50: routerjobs --version ${round(cliMs)} ms vs node -e 0 ${round(bareMs)} ms (ratio ${round(cliMs / bareMs)})`,
    ],
  };
}

interface WorkerResult {
  readonly ok: number;
  readonly rateLimited: number;
  readonly failures: string[];
}

/** A budget-worker process: `ready` resolves once it has loaded, `go()` starts its run. */
function startWorker(url: string, dir: string) {
  const child = spawn(process.execPath, ["--import", "tsx", "test/client/helpers/budget-worker.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      RJ_URL: url,
      ROUTERJOBS_TOKEN: TOKEN,
      RJ_BUDGET_DIR: dir,
      RJ_RATE: `${COUNT}/${WINDOW_MS}ms`,
      RJ_DURATION_MS: String(RUN_MS),
      RJ_ROUTER: ROUTER_ID,
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    if (out.startsWith("ready\n")) markReady();
  });
  const result = new Promise<WorkerResult>((resolve, reject) => {
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`budget worker exited ${String(code)}`));
      else resolve(JSON.parse(out.trim().split("\n").at(-1) ?? ""));
    });
  });
  return { ready, result, go: () => child.stdin.end("go\n") };
}
