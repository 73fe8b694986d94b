import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Builds dist/ once, for the tests that spawn the real CLI.
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Several suites start real servers, databases and terraform: two cores, so keep forks few.
    pool: "forks",
    maxWorkers: 2,
  },
});
