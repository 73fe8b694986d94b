import { defineConfig } from "vitest/config";

/**
 * The slow tier: tests whose cost is the programs they start, not our code, marked by the file's name
 * (`*.slow.test.ts`) or by their folder (e2e, packaging, examples). `npm test` runs the
 * quick tier alone, in under two minutes on a 2-core machine; `npm run test:all` (what CI runs, on every
 * supported Node) runs both. A test belongs here when it runs
 * - the built package as a user does: the CLI and its bundle (test/helpers/cli.ts), `npm pack`, the examples;
 * - Terraform, a browser (chromium), strace or Python;
 * - whole processes it kills, restarts or crashes (services, routers, receivers under a skewed clock);
 * - a fresh PGlite cluster's initdb (tens of seconds of CPU each).
 * Everything else (the service, receiver and client on loopback, PGlite and PostgreSQL, worker threads, small
 * helper processes) runs in the quick tier.
 */
const slow = [
  "test/**/*.slow.test.ts",
  "test/e2e/**/*.test.ts",
  "test/packaging/**/*.test.ts",
  "test/examples/**/*.test.ts",
];

export default defineConfig({
  test: {
    // Removes each file's scratch directories (test/helpers/scratch.ts) after its tests.
    setupFiles: ["test/scratch-setup.ts"],
    // Deadlines for a broken build, not for speed (timings are measured in bench/): with a second suite beside
    // this one on two cores (scripts/flake.mjs, a shared CI runner) a Terraform rollout test took over 30 s,
    // and the next test then met the Terraform that its deadline had left running.
    // A flake hunt (npm run flake) then saw the built CLI's --help loop and `service token create` (a dozen
    // processes each) pass 120 s: 300 s for every test and hook, a deadline that only a hung test meets.
    // Waits inside a test follow the same rule (test/helpers): a condition 120 s, a process's start or a CLI
    // run 240 s (a service's start passed 60 s in a flake hunt).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Most of a test's time is spent waiting on the processes it started (services, terraform, the CLI): with
    // two forks the two cores were busy 1.1 of the time, with four 1.6 (npm test 393 s -> 278 s, issue 19).
    pool: "forks",
    maxWorkers: 4,
    // One module graph per fork instead of one per file: importing it again for each of ~180 files cost 75 s of
    // the run's CPU. No test changes process-wide state it does not restore (environment, mocks, timers).
    isolate: false,
    projects: [
      { extends: true, test: { name: "quick", include: ["test/**/*.test.ts"], exclude: slow } },
      // Builds dist/ once, for the tests that spawn the real CLI; the quick tier runs src/ only.
      { extends: true, test: { name: "slow", include: slow, globalSetup: ["test/global-setup.ts"] } },
    ],
  },
});
