/**
 * CLI cold start with and without V8's compile cache (bin/routerjobs.js enables it where Node offers
 * `module.enableCompileCache`, Node >= 22.1), against `node -e 0`, alternated in one run. The cache goes where
 * the CLI puts it (the temp folder): a private TMPDIR, warmed once, keeps it apart from other runs.
 * Run with Node 22 or 24 first on PATH to measure it; on Node 20 the bench says it is unavailable.
 * `routerjobs apply` keeps a cache of its own that holds more (src/cli/startup/code-cache.ts, written after a
 * successful apply): bench/apply-process.bench.ts measures apply with and without it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchReport, percentile, round } from "./harness.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const STARTS = 30;
const CLI = "bin/routerjobs.js";

type Variant = { readonly args: readonly string[]; readonly env: NodeJS.ProcessEnv; readonly status: number };

function time(variant: Variant): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, variant.args, { cwd: ROOT, env: variant.env, stdio: "ignore" });
  if (result.status !== variant.status)
    throw new Error(`node ${variant.args.join(" ")} exited ${result.status}`);
  return performance.now() - started;
}

export async function run(): Promise<BenchReport> {
  const title = "CLI cold start with V8's compile cache";
  if (typeof (module as { enableCompileCache?: unknown }).enableCompileCache !== "function") {
    return {
      title,
      metrics: { available: false },
      lines: [`Node ${process.version} has no compile cache: nothing to measure`],
    };
  }
  const cacheHome = mkdtempSync(join(tmpdir(), "rj-compile-cache-"));
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("NODE_COMPILE_CACHE")),
  );
  const cached = { ...base, TMPDIR: cacheHome };
  const uncached = { ...base, NODE_DISABLE_COMPILE_CACHE: "1" };
  const variants: Record<string, Variant> = {
    bare: { args: ["-e", "0"], env: base, status: 0 },
    versionWithout: { args: [CLI, "--version"], env: uncached, status: 0 },
    versionWith: { args: [CLI, "--version"], env: cached, status: 0 },
  };
  try {
    time(variants.versionWith as Variant);
    const cacheFiles = readdirSync(cacheHome, { recursive: true }).length;
    const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, [] as number[]]));
    for (let i = 0; i < STARTS; i++) {
      for (const [name, variant] of Object.entries(variants)) samples[name]?.push(time(variant));
    }
    const ms = (name: string) => round(percentile(samples[name] ?? [], 50));
    const ratio = (name: string) => round(ms(name) / ms("bare"));
    const line = (what: string, name: string) => `${what} ${ms(name)} ms (ratio ${ratio(name)})`;
    return {
      title,
      metrics: {
        available: true,
        nodeBareP50Ms: ms("bare"),
        versionWithoutCacheP50Ms: ms("versionWithout"),
        versionWithCacheP50Ms: ms("versionWith"),
        versionWithoutCacheRatio: ratio("versionWithout"),
        versionWithCacheRatio: ratio("versionWith"),
        cacheFiles,
      },
      lines: [
        `p50 of ${STARTS} starts each, alternated; node -e 0 ${ms("bare")} ms; ${cacheFiles} entries in the cache`,
        `--version: ${line("without the cache", "versionWithout")}, ${line("with it", "versionWith")}`,
      ],
    };
  } finally {
    rmSync(cacheHome, { recursive: true, force: true });
  }
}
