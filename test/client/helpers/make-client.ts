import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RouterJobsClient, type RouterJobsClientOptions } from "../../../src/client/index.js";
import { TOKEN } from "./stand-in-service.js";

/** A fresh budget directory per call, so that tests never share (or pollute) the user's real budget. */
export function tempBudgetDir(): string {
  return mkdtempSync(join(tmpdir(), "rj-budget-"));
}

/** A client with fast retries, for tests. */
export function makeClient(
  baseUrl: string,
  overrides: Partial<RouterJobsClientOptions> = {},
): RouterJobsClient {
  return new RouterJobsClient({
    baseUrl,
    token: TOKEN,
    budgetDir: tempBudgetDir(),
    retry: { baseDelayMs: 10, maxDelayMs: 50 },
    deadlineMs: 10_000,
    ...overrides,
  });
}
