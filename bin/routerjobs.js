#!/usr/bin/env node
// The bundled CLI (scripts/bundle-cli.mjs): one file to load instead of ~250, for a fast start.
import module from "node:module";
import { setFlagsFromString } from "node:v8";

// V8's code cache on disk (Node >= 22.1): the bundle is compiled once, and later starts (Terraform runs
// `routerjobs apply` once per job) read the compiled code back (bench/compile-cache.bench.ts). The cache
// lives in NODE_COMPILE_CACHE, else the system's temp folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
// Node 20 has no such API and starts as before. Enabled before the bundle is imported, so that it is cached.
module.enableCompileCache?.();
// The long-running `service` and `receiver` hold V8's young generation at 1 MiB a semi-space instead of
// letting it grow to 16 MiB while the bundle loads and under load: 9-15 MiB less idle, and 7-18 MiB less after
// 1,000 submissions on Node 22 and 24 (docs/decisions.md). Both flags are needed (Node 22 and 24 grew it with
// either alone), and before the bundle loads: set later, the young generation keeps what it has.
if (process.argv[2] === "service" || process.argv[2] === "receiver") {
  for (const flag of ["--max-semi-space-size=1", "--semi-space-growth-factor=1"]) setFlagsFromString(flag);
}
// `apply` has a lean entry of its own (Terraform starts one per declared script): no commander, no other command.
await import(process.argv[2] === "apply" ? "../dist/bundle/apply-main.js" : "../dist/bundle/main.js");
