/**
 * Errors of the RouterOS API protocol, in the one `RouterjobsError` family, reusing its codes (and so the
 * CLI's exit codes). No message ever carries a password: messages are built from the command path, the user
 * name, limits and the router's own text only.
 */
import { RouterjobsError } from "../../errors.js";

/** The router answered `!trap`: it refused the command. `category` is RouterOS's (0-7) when it sent one. */
export class RouterApiTrapError extends RouterjobsError {
  override readonly name = "RouterApiTrapError";
  override readonly code = "RJ_ERR_COMMAND_FAILED";
  constructor(
    readonly command: string,
    /** The router's text, e.g. `failure: already have such address`. */
    readonly routerMessage: string,
    readonly category?: number,
  ) {
    super(`${command}: ${routerMessage}`);
  }
}

/** The router refused the user name or password (`/login` answered `!trap`). */
export class RouterApiLoginError extends RouterjobsError {
  override readonly name = "RouterApiLoginError";
  override readonly code = "RJ_ERR_UNAUTHENTICATED";
}

/** The connection failed, closed, or the router sent `!fatal`; TLS verification failures are here too. */
export class RouterApiConnectionError extends RouterjobsError {
  override readonly name = "RouterApiConnectionError";
  override readonly code = "RJ_ERR_NETWORK";
}

export class RouterApiTimeoutError extends RouterjobsError {
  override readonly name = "RouterApiTimeoutError";
  override readonly code = "RJ_ERR_TIMEOUT";
  constructor(
    readonly phase: "connect" | "login" | "command",
    message: string,
  ) {
    super(message);
  }
}

/** Bytes that break the protocol, or a reply beyond the limits this side accepts. */
export class RouterApiProtocolError extends RouterjobsError {
  override readonly name = "RouterApiProtocolError";
  override readonly code = "RJ_ERR_BAD_RESPONSE";
}

/** Options this side refuses before connecting (plaintext without consent, no way to verify TLS, ...). */
export class RouterApiOptionsError extends RouterjobsError {
  override readonly name = "RouterApiOptionsError";
  override readonly code = "RJ_ERR_USAGE";
}
