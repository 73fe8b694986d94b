#!/usr/bin/env node
// The bundled CLI (scripts/bundle-cli.mjs): one file to load instead of ~250, for a fast start.
import module from "node:module";

// V8's code cache on disk (Node >= 22.1): the bundle is compiled once, and later starts (Terraform runs
// `routerjobs apply` once per job) read the compiled code back (bench/compile-cache.bench.ts). The cache
// lives in NODE_COMPILE_CACHE, else the system's temp folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
// Node 20 has no such API and starts as before. Enabled before the bundle is imported, so that it is cached.
module.enableCompileCache?.();
// `apply` has a lean entry of its own (Terraform starts one per declared script): no commander, no other command.
await import(process.argv[2] === "apply" ? "../dist/bundle/apply-main.js" : "../dist/bundle/main.js");
