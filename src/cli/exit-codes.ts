/**
 * The CLI's exit codes: one table, applied by the one top-level handler (run.ts). docs/errors.md repeats it.
 *
 * | code | meaning                                                                  |
 * |------|--------------------------------------------------------------------------|
 * | 0    | success                                                                  |
 * | 1    | the work itself failed: a job failed, or the router refused the command  |
 * | 2    | usage or validation: a flag, an environment variable or the input is wrong |
 * | 3    | the service refused: authentication, unknown router, rate limit, bad answer |
 * | 4    | network or timeout: the service could not be reached in time             |
 * | 5    | local environment: a file, a port, a missing binary                      |
 * | 130  | interrupted (Ctrl-C) before it finished, as a shell reports 128 + SIGINT  |
 * | 70   | internal error (a bug): please report it                                 |
 *
 * `routerjobs plan` alone follows terraform plan -detailed-exitcode: 0 no change, 2 changes, 1 any error.
 */
import { type ErrorCode, RouterjobsError } from "../errors.js";

export const EXIT_CODES = {
  ok: 0,
  jobFailed: 1,
  usage: 2,
  api: 3,
  network: 4,
  environment: 5,
  interrupted: 130,
  internal: 70,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Error code (`RJ_ERR_*`) to exit code. A command adding an error code adds its row here and in docs/errors.md. */
const BY_ERROR_CODE = {
  RJ_ERR_JOB_FAILED: EXIT_CODES.jobFailed,
  RJ_ERR_NOT_APPLIED: EXIT_CODES.jobFailed,
  RJ_ERR_COMMAND_FAILED: EXIT_CODES.jobFailed,
  RJ_ERR_USAGE: EXIT_CODES.usage,
  RJ_ERR_VALIDATION: EXIT_CODES.usage,
  RJ_ERR_CONSTRUCT_INVALID: EXIT_CODES.usage,
  RJ_ERR_API: EXIT_CODES.api,
  RJ_ERR_UNAUTHENTICATED: EXIT_CODES.api,
  RJ_ERR_RATE_LIMITED: EXIT_CODES.api,
  RJ_ERR_BAD_RESPONSE: EXIT_CODES.api,
  RJ_ERR_NETWORK: EXIT_CODES.network,
  RJ_ERR_TIMEOUT: EXIT_CODES.network,
  RJ_ERR_ENVIRONMENT: EXIT_CODES.environment,
  RJ_ERR_INTERRUPTED: EXIT_CODES.interrupted,
  RJ_ERR_RECEIVER: EXIT_CODES.api,
  RJ_ERR_RECEIVER_UNAUTHENTICATED: EXIT_CODES.api,
  RJ_ERR_ADMIN: EXIT_CODES.api,
  // `routerjobs plan` follows terraform plan -detailed-exitcode: 2 changes, 1 any error (docs/plan.md).
  RJ_ERR_PLAN_CHANGES: 2,
  RJ_ERR_PLAN_FAILED: EXIT_CODES.jobFailed,
  // A script the simulated router or the twin refused, where no job carried it: the work failed.
  RJ_ERR_ROUTEROS: EXIT_CODES.jobFailed,
  // The service's own answer, raised inside the service: it never reaches a command, and is a bug if it does.
  RJ_ERR_HTTP: EXIT_CODES.internal,
  RJ_ERR_INTERNAL: EXIT_CODES.internal,
} as const satisfies Record<ErrorCode, ExitCode>;

export function exitCodeFor(error: unknown): number {
  if (!(error instanceof RouterjobsError)) return EXIT_CODES.internal;
  return BY_ERROR_CODE[error.code];
}
