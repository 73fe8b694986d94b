import { RouterJobsClient, type RouterJobsClientOptions } from "../../../src/client/index.js";
import { scratchDir } from "../../helpers/scratch.js";
import { TOKEN } from "./stand-in-service.js";

/**
 * A fresh budget directory per call, so that tests never share (or pollute) the user's real budget; removed
 * after the test file.
 */
export function tempBudgetDir(): string {
  return scratchDir("rj-budget-");
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
