#!/usr/bin/env node
// The bundled CLI (scripts/bundle-cli.mjs): one file to load instead of ~250, for a fast start.
import { existsSync } from "node:fs";
import module from "node:module";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";

/**
 * dist/ is built, not committed: `npm ci` in a checkout builds it (the `prepare` script) unless scripts are
 * turned off (--ignore-scripts), and then this says so instead of Node's ERR_MODULE_NOT_FOUND stack trace.
 * Checked only when the import failed, so a normal start pays nothing for it.
 */
async function importBundle(path) {
  try {
    return await import(path);
  } catch (error) {
    if (existsSync(new URL(path, import.meta.url))) throw error;
    const root = fileURLToPath(new URL("..", import.meta.url));
    process.stderr.write(
      `routerjobs is not built in ${root}: run \`npm run build\` there first (npm ci and npm install build it, unless scripts are turned off)\n`,
    );
    // 5, the CLI's exit code for the local environment (src/cli/exit-codes.ts).
    process.exit(5);
  }
}

// V8's code cache on disk (Node >= 22.1): the bundle is compiled once, and later starts (Terraform runs
// `routerjobs apply` once per job) read the compiled code back (bench/compile-cache.bench.ts). The cache
// lives in NODE_COMPILE_CACHE, else the system's temp folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
// Node 20 has no such API and starts as before. Enabled before the bundle is imported, so that it is cached.
module.enableCompileCache?.();
const { LONG_RUNNING_COMMANDS, MALLOC_ENVIRONMENT, YOUNG_GENERATION_FLAGS } = await importBundle(
  "../dist/bundle/long-running.js",
);
// The long-running `service` and `receiver` hold V8's young generation small and malloc's arenas lean
// (src/cli/startup/long-running.ts). Given at start the flags hold; set at run time (below) Node 22 still grew the young
// generation to 13 MiB under load, and glibc reads its settings only at start. So where Node can replace the
// process (process.execve, Node >= 22.15 on POSIX) it starts again with them on its command line and in its
// environment: the same process id, the same standard streams, one more start (~0.05 s).
const longRunning = LONG_RUNNING_COMMANDS.includes(process.argv[2]);
if (longRunning && !process.execArgv.includes(YOUNG_GENERATION_FLAGS[0])) {
  try {
    process.execve?.(
      process.execPath,
      [process.execPath, ...YOUNG_GENERATION_FLAGS, ...process.execArgv, ...process.argv.slice(1)],
      { ...MALLOC_ENVIRONMENT, ...process.env },
    );
  } catch {
    // Refused: the flags are set at run time below.
  }
  // Reached only without execve (Node 20) or when it was refused; before the bundle loads: set later, the
  // young generation keeps what it has.
  for (const flag of YOUNG_GENERATION_FLAGS) setFlagsFromString(flag);
}
// `apply` has a lean entry of its own (Terraform starts one per declared script): no commander, no other command.
await importBundle(process.argv[2] === "apply" ? "../dist/bundle/apply-main.js" : "../dist/bundle/main.js");
