/**
 * The entry bin/routerjobs.js takes for `routerjobs apply`: Terraform starts one per declared script, so its
 * start-up is paid once per job. It loads what apply needs and nothing else: no commander, no other
 * command. A command line it does not read (help, a typo) goes to the full CLI, which answers as always.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { exitQuietlyOnClosedPipe } from "../closed-pipe.js";
import { parseApplyArgs } from "./apply-args.js";
import { runWithCodeCache } from "./code-cache.js";

/**
 * The sha256 of dist/bundle/apply-body.cjs, which scripts/bundle-cli.mjs writes into the bundled entry; absent
 * where this module runs as tsc or tsx left it, and the body is then imported as a module.
 */
declare const APPLY_BODY_SHA256: string | undefined;

type ApplyBody = typeof import("./apply-body.js");

/**
 * Apply's modules (apply-body.ts), run from their CommonJS bundle with V8's code for them cached on disk
 * (code-cache.ts): the functions an apply calls are not parsed and compiled again in every process.
 */
async function loadApplyBody(): Promise<{ body: ApplyBody; saveCodeCache: () => void }> {
  if (typeof APPLY_BODY_SHA256 !== "string")
    return { body: await import("./apply-body.js"), saveCodeCache() {} };
  const bundle = runWithCodeCache(
    fileURLToPath(new URL("./apply-body.cjs", import.meta.url)),
    APPLY_BODY_SHA256,
  );
  return { body: bundle.exports as ApplyBody, saveCodeCache: () => bundle.save() };
}

/**
 * Node's own modules that an apply goes on to load (undici's, the TLS connection's, the rate budget's and the
 * journal's), loaded before V8's settings below change: V8 checks its flags against those that Node's build
 * compiled its modules' code cache with, and with any flag changed it compiles each module again from source,
 * which for tls, http, assert and fs/promises costs several times their load from the cache (figures:
 * docs/performance.md). A module missing here still loads, compiled again; one that is already loaded costs
 * nothing.
 */
const NODE_MODULES_APPLY_LOADS = [
  "node:assert",
  "node:async_hooks",
  "node:crypto",
  "node:diagnostics_channel",
  "node:fs/promises",
  "node:http",
  "node:net",
  "node:os",
  "node:perf_hooks",
  "node:querystring",
  "node:stream",
  "node:timers/promises",
  "node:tls",
];
const require = createRequire(import.meta.url);

const flags = parseApplyArgs(process.argv.slice(3));
if (flags === undefined) {
  await import("../main.js");
} else {
  /*
   * V8's settings for this process. Each apply runs for a fraction of a second of CPU, so code that V8
   * optimizes is compiled for a handful of calls and never pays back the compiling (bench/apply-process.bench.ts;
   * figures in docs/performance.md and docs/decisions.md):
   * - `--no-opt --no-maglev`: Ignition and Sparkplug only, no TurboFan or Maglev. The functions that turned hot
   *   (zod's parsing, undici's request path) were compiled by TurboFan on a background thread: peak memory
   *   for the optimizing compiler's code and data, paged in for that alone, and no CPU saved. A long router's
   *   list answer parses as fast without it.
   * - `--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering`: undici parses HTTP with llhttp compiled to
   *   WebAssembly, whose parser function turns hot on the first response; TurboFan's recompile of that large
   *   function was a large share of an apply's CPU and memory, for five responses that Liftoff's baseline
   *   code parses as well. Set before the first connection compiles the module (undici compiles it lazily).
   * Each flag is named: V8 applies a flag's implications only to flags given at start, and on Node 24 (V8 13)
   * `--max-opt=1` or `--liftoff-only` set later changed nothing (`--trace-opt`, `--trace-wasm-compilation-times`).
   * - `--semi-space-growth-factor=1`: the young generation keeps its first size (1 MiB per semi-space) instead
   *   of doubling while the modules load, most of which outlive it anyway: less peak memory for a few more
   *   short scavenges, whose CPU the bench does not see.
   * Set before apply's modules are evaluated (hence they are loaded below, not imported: static imports would be
   * evaluated first), and in this process only: the library, the service and the receiver do not get them.
   */
  for (const name of NODE_MODULES_APPLY_LOADS) require(name);
  const v8Flags = [
    "--no-opt",
    "--no-maglev",
    "--liftoff-only",
    "--no-wasm-tier-up",
    "--no-wasm-dynamic-tiering",
    "--semi-space-growth-factor=1",
  ];
  for (const flag of v8Flags) setFlagsFromString(flag);
  const { body, saveCodeCache } = await loadApplyBody();
  const { runApply, reportError } = body;
  exitQuietlyOnClosedPipe(process.stdout);
  exitQuietlyOnClosedPipe(process.stderr);
  try {
    await runApply(flags);
    process.exitCode = 0;
    // After a success only: a failed apply may have compiled no more than its error's path.
    saveCodeCache();
  } catch (error) {
    process.exitCode = reportError(error, flags.verbose === true);
  }
}
