import { describe, expect, it } from "vitest";
import { EXIT_CODES, exitCodeFor } from "../../src/cli/exit-codes.js";
import { formatError } from "../../src/cli/report-error.js";
import {
  ApiError,
  AuthenticationError,
  CommandFailedError,
  JobFailedError,
  NetworkError,
  RateLimitedError,
  TimeoutError,
  ValidationError,
} from "../../src/client/index.js";
import { EnvironmentError, InterruptedError, RouterjobsError, UsageError } from "../../src/errors.js";

describe("exit codes", () => {
  it("maps every client error class to the documented code", () => {
    const api = { statusCode: 404, message: "No such router." };
    const cases: [unknown, number][] = [
      [new JobFailedError({ id: "j1", seq_id: 3, status: "failed", error: "no such item" }), 1],
      [new CommandFailedError({ statusCode: 400, message: "failure" }), 1],
      [new UsageError("bad flag"), 2],
      [new ValidationError([{ field: "script", message: "too long" }]), 2],
      [new ApiError(api), 3],
      [new AuthenticationError({ statusCode: 401, message: "bad token" }), 3],
      [new RateLimitedError({ statusCode: 429, message: "slow", retryAfterMs: 1000 }), 3],
      [new NetworkError("refused", { requestSent: false }), 4],
      [new TimeoutError("slow", { phase: "response", requestSent: true }), 4],
      [new EnvironmentError("no terraform"), 5],
      [new InterruptedError("stopped"), 130],
      [new RouterjobsError("unlisted"), EXIT_CODES.internal],
      [new TypeError("a bug"), EXIT_CODES.internal],
    ];
    for (const [error, code] of cases) expect(exitCodeFor(error), String(error)).toBe(code);
  });
});

describe("formatError", () => {
  it("prints one line for a user error, a second with facts under --verbose", () => {
    const error = new ApiError({
      statusCode: 422,
      apiCode: "invalid_request",
      message: "The request is invalid. (HTTP 422)",
      details: [{ field: "script", message: "must be at most 2000 characters (got 2417)" }],
      requestId: "req-1",
    });
    expect(formatError(error, false)).toBe(
      "routerjobs: The request is invalid. (HTTP 422); script: must be at most 2000 characters (got 2417)\n",
    );
    expect(formatError(error, true).split("\n")[1]).toBe(
      "routerjobs: code RJ_ERR_API, HTTP 422, api code invalid_request, request id req-1",
    );
  });

  it("names a job failure with its sequence and the router's text", () => {
    const error = new JobFailedError({ id: "j1", seq_id: 3, status: "failed", error: "no such item" });
    expect(formatError(error, false)).toBe("routerjobs: job j1 (#3) failed: no such item\n");
  });

  it("shows a stack only for an internal error, and only with --verbose", () => {
    const bug = new TypeError("x is undefined");
    expect(formatError(bug, false)).toBe("routerjobs: internal error: x is undefined\n");
    expect(formatError(bug, true)).toMatch(
      /^routerjobs: internal error: x is undefined\nTypeError: x is undefined\n\s+at /,
    );
    expect(formatError(new UsageError("bad"), true)).not.toMatch(/\n\s+at /);
  });
});
