/**
 * How an error reaches the user: ONE line on stderr (`routerjobs: <message>`), more with --verbose. Apart from
 * run.ts (commander's handler) because `routerjobs apply`'s lean entry (apply-main.ts) reports the same way
 * without loading commander.
 */
import { accessSync, constants, existsSync } from "node:fs";
import { dirname } from "node:path";
import { EnvironmentError, RouterjobsError } from "../errors.js";
import { exitCodeFor } from "./exit-codes.js";

/** Writes the error's line(s) to stderr and returns the exit code it maps to (exit-codes.ts). */
export function reportError(error: unknown, verbose: boolean): number {
  const reported = fileSystemError(error) ?? error;
  process.stderr.write(formatError(reported, verbose));
  return exitCodeFor(reported);
}

export function formatError(error: unknown, verbose: boolean): string {
  if (!(error instanceof RouterjobsError)) {
    const message = error instanceof Error ? error.message : String(error);
    const stack = verbose && error instanceof Error && error.stack ? `\n${error.stack}` : "";
    return `routerjobs: internal error: ${message}${stack}\n`;
  }
  const lines = [`routerjobs: ${summary(error)}`];
  if (verbose) {
    const facts = error as RouterjobsError &
      Partial<Record<"statusCode" | "apiCode" | "requestId" | "causeCode", unknown>>;
    const detail = [
      `code ${error.code}`,
      facts.statusCode === undefined ? "" : `HTTP ${facts.statusCode}`,
      facts.apiCode ? `api code ${facts.apiCode}` : "",
      facts.requestId ? `request id ${facts.requestId}` : "",
      facts.causeCode ? `cause ${facts.causeCode}` : "",
    ].filter(Boolean);
    lines.push(`routerjobs: ${detail.join(", ")}`);
    if (error.cause instanceof Error)
      lines.push(`routerjobs: caused by ${error.cause.name}: ${error.cause.message}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The message, the service's field details (when the message does not already carry them) and a hint. */
function summary(error: RouterjobsError): string {
  const details = (error as { details?: readonly { field: string; message: string }[] }).details ?? [];
  const extra =
    error.code === "RJ_ERR_VALIDATION" ? [] : details.map((detail) => `${detail.field}: ${detail.message}`);
  const hint = HINTS[error.code];
  return [error.message, ...extra].join("; ") + (hint ? ` (${hint})` : "");
}

const HINTS: Readonly<Record<string, string>> = {
  RJ_ERR_UNAUTHENTICATED: "check ROUTERJOBS_TOKEN or --token-file",
  RJ_ERR_RATE_LIMITED: "the budget is shared by every process using this token; see --rate-limit",
};

/** What the local file system refused, in words: a read-only state directory, a full disk, a missing folder. */
const FILE_SYSTEM_CODES: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  ENOTDIR: "a part of the path is not a folder",
};

/**
 * A file-system error that reached the top (a state directory that cannot be written, a full disk) is the
 * local environment, not a bug: exit 5 with the path and the reason, instead of 70 "internal error".
 */
export function fileSystemError(error: unknown): EnvironmentError | undefined {
  const { path, syscall } = (error ?? {}) as { path?: unknown; syscall?: unknown };
  let { code } = (error ?? {}) as { code?: unknown };
  if (code === "ENOENT" && syscall === "mkdir" && typeof path === "string") code = mkdirRefusal(path) ?? code;
  if (typeof code !== "string" || typeof path !== "string" || !(code in FILE_SYSTEM_CODES)) return undefined;
  const what = typeof syscall === "string" ? `${syscall} ` : "";
  return new EnvironmentError(`cannot ${what}${path}: ${FILE_SYSTEM_CODES[code]} (${code})`, {
    cause: error,
  });
}

/**
 * Why a folder could not be made, when `mkdir -p` said ENOENT: Node's recursive mkdir reports the ENOENT of the
 * missing parent it could not make, not why it could not (a fresh `--data` on a read-only file system). The
 * nearest folder that exists tells, by whether it may be written to (EROFS, EACCES), without writing anything.
 */
function mkdirRefusal(path: string): string | undefined {
  let folder = dirname(path);
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  try {
    accessSync(folder, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && code in FILE_SYSTEM_CODES ? code : undefined;
  }
}
