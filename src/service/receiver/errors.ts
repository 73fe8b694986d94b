import { type ErrorCode, RouterjobsError } from "../../errors.js";

/** The receiver answered with an error, or its answer could not be read. */
export class ReceiverRequestError extends RouterjobsError {
  override readonly name: string = "ReceiverRequestError";
  override readonly code: ErrorCode = "RJ_ERR_RECEIVER";

  constructor(
    message: string,
    /** HTTP status, undefined when no response arrived. */
    readonly statusCode?: number,
  ) {
    super(message);
  }
}

/** The receiver refused the reader token: retrying cannot help, the token must be fixed. */
export class ReceiverAuthError extends ReceiverRequestError {
  override readonly name = "ReceiverAuthError";
  override readonly code = "RJ_ERR_RECEIVER_UNAUTHENTICATED";
}
