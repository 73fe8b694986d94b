import { defineConfig } from "vitest/config";

/**
 * The slow tier: tests whose cost is the programs they start, not our code (issue 19). `npm test` runs the
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
  "test/e2e/**/*.test.ts",
  "test/packaging/**/*.test.ts",
  "test/examples/**/*.test.ts",
  "test/cli/api-profile.test.ts",
  "test/cli/cli.test.ts",
  "test/cli/closed-pipe.test.ts",
  "test/cli/startup/code-cache.test.ts",
  "test/cli/plan.test.ts",
  "test/cli/service-admin.test.ts",
  "test/cli/state-dir.test.ts",
  "test/deploy/constructs/terraform.test.ts",
  "test/demo/router-processes.test.ts",
  "test/faults/clock-skew.test.ts",
  "test/deploy/plan/import-module.test.ts",
  "test/service/receiver/cli.test.ts",
  "test/routeros/api/peers.test.ts",
  "test/routeros/api/router-simulate.test.ts",
  "test/security/process-list.test.ts",
  "test/service/device-crash.test.ts",
  "test/service/restart.test.ts",
  "test/service/shutdown.test.ts",
  "test/service/portal/browser.test.ts",
  "test/service/portal/browser-live.test.ts",
  "test/service/database/durable-before-2xx.test.ts",
  "test/service/database/strace.test.ts",
  "test/service/database/pglite-init.test.ts",
  "test/service/database/pglite-on-thread.test.ts",
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
