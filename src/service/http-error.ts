import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from "../contract/errors.js";
import { RouterjobsError } from "../errors.js";

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
