import { describe, expect, it } from "vitest";
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

  it("returns undefined for anything else", () => {
    expect(readErrorBody("<html>")).toBeUndefined();
    expect(readErrorBody({ error: 1 })).toBeUndefined();
    expect(readErrorBody(null)).toBeUndefined();
  });
});
