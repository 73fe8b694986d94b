import { describe, expect, it } from "vitest";
import { bearerToken } from "../../../src/platform/http/bearer.js";

describe("bearerToken", () => {
  it("reads the token whatever the case of the scheme, with spaces around it", () => {
    for (const header of ["Bearer abc", "bearer abc", "BEARER abc", "Bearer   abc  "]) {
      expect(bearerToken(header), header).toBe("abc");
    }
  });

  it("finds none in a missing, empty, other-scheme or two-token header", () => {
    for (const header of [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      "Basic abc",
      "abc",
      "Bearer a b",
      "Bearerabc",
    ]) {
      expect(bearerToken(header), String(header)).toBeUndefined();
    }
  });
});
