import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Builds dist/ once, for the tests that spawn the real CLI.
    globalSetup: ["test/global-setup.ts"],
    // Removes each file's scratch directories (test/helpers/scratch.ts) after its tests.
    setupFiles: ["test/scratch-setup.ts"],
    // Deadlines for a broken build, not for speed (timings are measured in bench/): with a second suite beside
    // this one on two cores (scripts/flake.mjs, a shared CI runner) a Terraform rollout test took over 30 s,
    // and the next test then met the Terraform that its deadline had left running.
    // A flake hunt (npm run flake) then saw the built CLI's --help loop and `service token create` (a dozen
    // processes each) pass 120 s: 300 s for every test and hook, a deadline that only a hung test meets.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Most of a test's time is spent waiting on the processes it started (services, terraform, the CLI): with
    // two forks the two cores were busy 1.1 of the time, with four 1.6 (npm test 393 s -> 278 s, issue 19).
    pool: "forks",
    maxWorkers: 4,
    // One module graph per fork instead of one per file: importing it again for each of ~180 files cost 75 s of
    // the run's CPU. No test changes process-wide state it does not restore (environment, mocks, timers).
    isolate: false,
  },
});
