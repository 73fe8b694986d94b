import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BEARER_TOKEN_MAX_CHARS,
  bearerTokenProblem,
  parseToken,
  redactToken,
  tokenFingerprint,
} from "../../src/contract/token.js";

const SPEC_TOKEN = `3f1c9a3e-2b7d-4c1e-9a51-0c2f4b6d8e10:9b2e6f0a-1c3d-4e5f-8a7b-6c5d4e3f2a1b:${"S3cr3t".repeat(10)}xy`;
const JWT =
  "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZWFtLTEiLCJleHAiOjE4OTM0NTYwMDB9.c2lnbmF0dXJlLWJ5dGVz-_x";
const OPAQUE = "ak_live_7Hq9+Zr/2mX~vP.Lw==";
/** A console API key in the newest edition's documented shape: `alto_sk_` and its secret. */
const CONSOLE_KEY = "alto_sk_4fQ9zR2mXw7LkP0sT8vB3nY6cJ1hD5gA";

/** Visible ASCII: everything a bearer credential may carry on the client side. */
const visible = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
  minLength: 1,
  maxLength: 300,
});

describe("client-side bearer token check", () => {
  it("accepts the spec's token, an OAuth JWT, a console API key (alto_sk_) and an opaque API key", () => {
    for (const token of [SPEC_TOKEN, JWT, CONSOLE_KEY, OPAQUE])
      expect(bearerTokenProblem(token)).toBeUndefined();
  });

  it("refuses a console key or a JWT pasted with its line break or a space, naming the position only", () => {
    expect(bearerTokenProblem(`${CONSOLE_KEY}\n`)).toBe(
      `must not contain whitespace or control characters (one at position ${CONSOLE_KEY.length + 1})`,
    );
    expect(bearerTokenProblem(`Bearer ${JWT}`)).toBe(
      "must not contain whitespace or control characters (one at position 7)",
    );
    for (const token of [`${CONSOLE_KEY}\n`, `Bearer ${JWT}`])
      expect(bearerTokenProblem(token)).not.toContain(CONSOLE_KEY.slice(8));
  });

  it("accepts any visible ASCII (property)", () => {
    fc.assert(
      fc.property(visible, (token) => {
        expect(bearerTokenProblem(token)).toBeUndefined();
      }),
    );
  });

  it("refuses whitespace, control characters and non-ASCII anywhere, naming the position and not the value", () => {
    const bad = fc.oneof(
      fc.constantFrom(" ", "\t", "\n", "\r", "\u0000", "\u007f", "\u001b"),
      fc.constantFrom("é", "\u00a0", "\u2028", "😀", "\ufeff"),
    );
    fc.assert(
      fc.property(visible, bad, visible, (before, char, after) => {
        const token = `${before}${char}${after}`;
        const problem = bearerTokenProblem(token);
        expect(problem).toMatch(
          new RegExp(
            `^must (not contain whitespace or control characters \\(one|be ASCII only \\(a character outside ASCII) at position ${before.length + 1}\\)$`,
          ),
        );
        expect(problem).not.toContain(before.length > 3 ? before : "\u0000never");
      }),
    );
  });

  it("refuses an empty value, a non-string and one beyond the length bound", () => {
    expect(bearerTokenProblem("")).toBe("is empty");
    expect(bearerTokenProblem(undefined)).toBe("must be a string");
    expect(bearerTokenProblem("a".repeat(BEARER_TOKEN_MAX_CHARS))).toBeUndefined();
    expect(bearerTokenProblem("a".repeat(BEARER_TOKEN_MAX_CHARS + 1))).toBe(
      `must be at most ${BEARER_TOKEN_MAX_CHARS} characters (got ${BEARER_TOKEN_MAX_CHARS + 1})`,
    );
  });

  it("leaves the service's own check strict: a JWT or an API key is not a spec token", () => {
    expect(parseToken(JWT)).toHaveProperty("error");
    expect(parseToken(OPAQUE)).toHaveProperty("error");
    expect(parseToken(CONSOLE_KEY)).toHaveProperty("error");
    expect(parseToken(SPEC_TOKEN)).not.toHaveProperty("error");
  });

  it("fingerprints and redacts any token shape without revealing it", () => {
    for (const token of [JWT, CONSOLE_KEY, OPAQUE]) {
      expect(tokenFingerprint(token)).toMatch(/^[0-9a-f]{32}$/);
      expect(redactToken(token)).toBe("***");
    }
    expect(tokenFingerprint(JWT)).not.toBe(tokenFingerprint(OPAQUE));
  });
});
