/**
 * The base of every error routerjobs raises on purpose. Callers branch on the class or on `code`
 * (`RJ_ERR_...`, listed in docs/errors.md), never on message text. No error carries an API token.
 */
export class RouterjobsError extends Error {
  override readonly name: string = "RouterjobsError";
  readonly code: string = "RJ_ERR_INTERNAL";
}

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
