import { describe, expect, it } from "vitest";
import { errorFromResponse } from "../../src/client/response-errors.js";
import { errorEnvelope, readErrorBody } from "../../src/contract/index.js";

describe("error bodies", () => {
  it("reads the project's envelope", () => {
    const body = errorEnvelope("invalid_request", "The request is invalid.", [
      { field: "script", message: "too long" },
    ]);
    expect(readErrorBody(body)).toEqual({
      code: "invalid_request",
      message: "The request is invalid.",
      details: [{ field: "script", message: "too long" }],
    });
  });

  it("reads Laravel's validation and throttling shapes", () => {
    expect(
      readErrorBody({
        message: "The script field is required.",
        errors: { script: ["The script field is required."] },
      }),
    ).toEqual({
      message: "The script field is required.",
      details: [{ field: "script", message: "The script field is required." }],
    });
    expect(readErrorBody({ message: "Too Many Attempts." })).toEqual({
      message: "Too Many Attempts.",
      details: [],
    });
  });

  it("reads the public service's documented {type, code, message, doc_url}, also without doc_url", () => {
    const documented = {
      type: "invalid_request_error",
      code: "job_already_started",
      message: "This job has already started.",
      doc_url: "https://docs.altostrat.io/errors/job_already_started",
    };
    expect(readErrorBody(documented)).toEqual({
      code: "job_already_started",
      message: "This job has already started.",
      details: [],
      type: "invalid_request_error",
      docUrl: "https://docs.altostrat.io/errors/job_already_started",
    });
    const { doc_url: _url, ...withoutUrl } = documented;
    expect(readErrorBody({ ...withoutUrl, param: "id" })).toEqual({
      code: "job_already_started",
      message: "This job has already started.",
      details: [],
      type: "invalid_request_error",
    });
  });

  it("each documented shape becomes an ApiError with its code, message and (for the documented one) doc URL", () => {
    const answers = [
      [404, JSON.stringify(errorEnvelope("router_not_found", "no such router"))],
      [422, JSON.stringify({ message: "The script field is required.", errors: { script: ["required"] } })],
      [
        400,
        JSON.stringify({
          type: "invalid_request_error",
          code: "job_already_started",
          message: "started",
          doc_url: "https://docs.altostrat.io/errors/job_already_started",
        }),
      ],
      [401, JSON.stringify({ message: "Unauthenticated." })],
    ] as const;
    const read = answers.map(([statusCode, text]) => {
      const error = errorFromResponse({ statusCode, text });
      return [error.name, error.apiCode, error.message, error.errorType, error.docUrl, error.raw];
    });
    expect(read).toEqual([
      ["ApiError", "router_not_found", "no such router (HTTP 404)", undefined, undefined, undefined],
      ["ApiError", undefined, "The script field is required. (HTTP 422)", undefined, undefined, undefined],
      [
        "ApiError",
        "job_already_started",
        "started (HTTP 400)",
        "invalid_request_error",
        "https://docs.altostrat.io/errors/job_already_started",
        undefined,
      ],
      ["AuthenticationError", undefined, "Unauthenticated. (HTTP 401)", undefined, undefined, undefined],
    ]);
  });

  it("returns undefined for anything else", () => {
    expect(readErrorBody("<html>")).toBeUndefined();
    expect(readErrorBody({ error: 1 })).toBeUndefined();
    expect(readErrorBody(null)).toBeUndefined();
  });
});
