/**
 * The two outcomes of `routerjobs plan` that are not success, with the exit codes of
 * `terraform plan -detailed-exitcode`: 2 when a router would change, 1 for any error (src/cli/exit-codes.ts).
 */
import { RouterjobsError } from "../../errors.js";

/** The plan ran and found changes (or drift): not a failure, but CI must see it. Exit 2. */
export class PlanChangesError extends RouterjobsError {
  override readonly name = "PlanChangesError";
  override readonly code = "RJ_ERR_PLAN_CHANGES";
}

/**
 * The plan could not be made (bad input, a router the token cannot see, the service unreachable), a script
 * would fail on a twin, or a change would cut the service off. Exit 1, whatever the underlying error, so that 2
 * always means "changes".
 */
export class PlanFailedError extends RouterjobsError {
  override readonly name = "PlanFailedError";
  override readonly code = "RJ_ERR_PLAN_FAILED";
}
