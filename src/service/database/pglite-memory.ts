import { setFlagsFromString } from "node:v8";

/**
 * PostgreSQL settings for embedded PGlite, chosen for memory. PGlite's defaults are a server's:
 * `shared_buffers=128MB` lives inside the wasm memory, which never shrinks, so each process held it from
 * start whatever its load. The service's and the receiver's working sets are small (jobs and notifications
 * by primary key); 8 MB of buffers keeps them cached while the operating system's page cache holds the rest.
 * Figures: docs/decisions.md ("Embedded store: durable, and small").
 */
export const PGLITE_MEMORY_SETTINGS: readonly string[] = [
  "shared_buffers=8MB",
  // Follows shared_buffers by default (1/32); named so a change to one does not silently move the other.
  "wal_buffers=256kB",
];

/**
 * PostgreSQL compiled to wasm is a large module: V8 compiles it with Liftoff, then recompiles its hot
 * functions with TurboFan in the background. That second copy is memory the process keeps for good, and on
 * two shared cores the background compiling made the first few thousand transactions slower while later ones
 * gained little (figures: docs/performance.md). Process-wide, set before the module compiles, as `routerjobs
 * apply` does for undici's llhttp.
 */
export function keepWasmAtBaselineTier(): void {
  // Each flag named: V8 applies a flag's implications only to flags given at start, and on Node 24 (V8 13)
  // `--liftoff-only` set at run time alone left tier-up on (src/cli/startup/apply-main.ts measured it for undici).
  for (const flag of ["--liftoff-only", "--no-wasm-tier-up", "--no-wasm-dynamic-tiering"])
    setFlagsFromString(flag);
}
