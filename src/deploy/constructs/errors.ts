import { RouterjobsError } from "../../errors.js";

/**
 * A construct's props break a rule; raised in the constructor, so `cdktf synth` stops before any Terraform
 * runs. The message starts with the construct path, then names each field and its limit.
 */
export class ConstructValidationError extends RouterjobsError {
  override readonly name = "ConstructValidationError";
  override readonly code = "RJ_ERR_CONSTRUCT_INVALID";

  constructor(
    /** Construct path, e.g. `office/edge-1/firewall`. */
    readonly path: string,
    /** One entry per broken rule: the prop name and what is wrong with it. */
    readonly problems: readonly { readonly field: string; readonly message: string }[],
  ) {
    super(`${path}: ${problems.map((problem) => `${problem.field} ${problem.message}`).join("; ")}`);
  }
}
