/**
 * The base of every error routerjobs raises on purpose. Callers branch on the class or on `code`
 * (`RJ_ERR_...`, listed in docs/errors.md), never on message text. No error carries an API token.
 */
export class RouterjobsError extends Error {
  override readonly name: string = "RouterjobsError";
  readonly code: ErrorCode = "RJ_ERR_INTERNAL";
}

/**
 * Every code an error of routerjobs carries. The CLI's exit-code table (src/cli/exit-codes.ts) must name each
 * one, and the compiler holds it to that: a code added here without its exit code does not build.
 */
export const ERROR_CODES = [
  "RJ_ERR_INTERNAL",
  "RJ_ERR_USAGE",
  "RJ_ERR_VALIDATION",
  "RJ_ERR_CONSTRUCT_INVALID",
  "RJ_ERR_ENVIRONMENT",
  "RJ_ERR_INTERRUPTED",
  "RJ_ERR_NOT_APPLIED",
  "RJ_ERR_JOB_FAILED",
  "RJ_ERR_COMMAND_FAILED",
  "RJ_ERR_ROUTEROS",
  "RJ_ERR_API",
  "RJ_ERR_HTTP",
  "RJ_ERR_UNAUTHENTICATED",
  "RJ_ERR_RATE_LIMITED",
  "RJ_ERR_BAD_RESPONSE",
  "RJ_ERR_NETWORK",
  "RJ_ERR_TIMEOUT",
  "RJ_ERR_RECEIVER",
  "RJ_ERR_RECEIVER_UNAUTHENTICATED",
  "RJ_ERR_ADMIN",
  "RJ_ERR_PLAN_CHANGES",
  "RJ_ERR_PLAN_FAILED",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** A wrong flag, option or input that the user can fix; the CLI exits 2 and prints the message alone. */
export class UsageError extends RouterjobsError {
  override readonly name = "UsageError";
  override readonly code = "RJ_ERR_USAGE";
}

/** A failure of the local environment (a file, a port, a missing binary such as terraform). */
export class EnvironmentError extends RouterjobsError {
  override readonly name = "EnvironmentError";
  override readonly code = "RJ_ERR_ENVIRONMENT";
}

/** The user stopped the command (Ctrl-C, SIGTERM) before it finished; the CLI exits 130, as a shell would. */
export class InterruptedError extends RouterjobsError {
  override readonly name = "InterruptedError";
  override readonly code = "RJ_ERR_INTERRUPTED";
}

/**
 * Declared changes that did not all reach their routers: a failure `reconcile` found after an interrupted
 * deploy, or a `terraform apply` under `routerjobs deploy` that failed. The CLI exits 1, as Terraform does.
 */
export class ChangesNotAppliedError extends RouterjobsError {
  override readonly name = "ChangesNotAppliedError";
  override readonly code = "RJ_ERR_NOT_APPLIED";
}
