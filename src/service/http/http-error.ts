import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from "../../contract/errors.js";
import {
  RouterCommandError,
  RouterTimeoutError,
  RouterUnreachableError,
} from "../../contract/routers/router-backend.js";
import { RouterjobsError } from "../../errors.js";

/** An answer of the contract's error table: the error handler turns it into the envelope and status. */
export class HttpError extends RouterjobsError {
  override readonly name = "HttpError";
  override readonly code = "RJ_ERR_HTTP";
  readonly statusCode: number;

  constructor(
    readonly errorCode: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.statusCode = ERROR_STATUS[errorCode];
  }
}

export const routerNotFound = (routerId: string) =>
  new HttpError(
    "router_not_found",
    `router ${routerId} does not exist or does not belong to the team of this API token`,
  );

/** A router's failure as the contract's answer: refused (400), unreachable (502), too slow (504). */
export function routerFailure(error: unknown): never {
  if (error instanceof RouterCommandError) throw new HttpError("command_failed", error.message);
  if (error instanceof RouterUnreachableError) {
    throw new HttpError("router_unreachable", `the router is not reachable: ${error.message}`);
  }
  if (error instanceof RouterTimeoutError) {
    throw new HttpError("router_timeout", `the router did not answer in time: ${error.message}`);
  }
  throw error;
}
