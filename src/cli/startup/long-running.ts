/**
 * How `bin/routerjobs.js` starts the commands that run until stopped, for their memory (the service and
 * the receiver <= 200 MiB each, idle and under the soak). `apply` lives a second and starts as it is.
 */
export const LONG_RUNNING_COMMANDS: readonly string[] = ["service", "receiver"];

/**
 * V8's young generation held at 1 MiB a semi-space instead of growing to 16 MiB while the bundle loads and
 * under load: a request's garbage all dies young, so the larger young generation is memory held for nothing
 * (figures: docs/performance.md; docs/decisions.md). Both flags are needed (Node 22 and 24 grew it with
 * either alone).
 */
export const YOUNG_GENERATION_FLAGS: readonly string[] = [
  "--max-semi-space-size=1",
  "--semi-space-growth-factor=1",
];

/**
 * glibc's malloc with its mmap threshold fixed at its starting 128 KiB, and two arenas. By default the threshold
 * rises to the largest block freed (up to 32 MiB), after which such blocks (socket and TLS buffers, the messages
 * to and from the store's thread) come from the arenas, which keep what is freed in their middle; each thread
 * that allocates may get an arena of its own. Under the soak that left freed memory held in the arenas and
 * the service's peak RSS above its goal (figures: docs/performance.md, bench/soak.bench.ts;
 * docs/decisions.md). glibc reads them as the process starts, so they apply where the bin starts again
 * (process.execve); a value the user set is kept.
 */
export const MALLOC_ENVIRONMENT: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: "2",
  MALLOC_MMAP_THRESHOLD_: "131072",
};
