export { API_PROFILES, type ApiProfileName } from "../contract/api-profile-name.js";
export {
  type CallOptions,
  type FindJobsOptions,
  RouterJobsClient,
  type RouterRecord,
  type SubmitOptions,
  type SubmittedJob,
} from "./client.js";
export * from "./errors.js";
export type { ClientLogger, RetryOptions, RouterJobsClientOptions } from "./options.js";
export type { BackupItem } from "./profiles.js";
export { type BudgetState, type Permit, RateBudget, type RateBudgetOptions } from "./rate-budget.js";
export { backoffMs, type Operation, parseRetryAfter, type RetryContext, shouldRetry } from "./retry.js";
export { defaultStateDir } from "./state-dir.js";
export { USER_AGENT, VERSION } from "./version.js";
