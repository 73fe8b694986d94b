import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  parseToken,
  redactToken,
  TOKEN_SECRET_CHARS,
  tokenFingerprint,
  tokenSchema,
} from "../../src/contract/index.js";

const alnum = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
const uuid = fc.uuid().map((value) => value.toLowerCase());

describe("bearer token format", () => {
  it("parses <uuid>:<uuid>:<62 alphanumerics> into its parts", () => {
    fc.assert(
      fc.property(
        uuid,
        uuid,
        fc.string({ unit: alnum, minLength: 62, maxLength: 62 }),
        (tokenId, teamId, secret) => {
          expect(parseToken(`${tokenId}:${teamId}:${secret}`)).toEqual({ tokenId, teamId, secret });
        },
      ),
    );
  });

  it("names the length of a wrong secret without echoing it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 120 }).filter((n) => n !== TOKEN_SECRET_CHARS),
        (length) => {
          const secret = "a".repeat(length);
          const result = parseToken(
            `${"1".repeat(8)}-1111-1111-1111-${"1".repeat(12)}:${"2".repeat(8)}-2222-2222-2222-${"2".repeat(12)}:${secret}`,
          );
          expect(result).toEqual({ error: `last part must be exactly 62 characters (got ${length})` });
        },
      ),
    );
  });

  it("rejects upper-case UUIDs, wrong part counts and non-alphanumeric secrets", () => {
    const secret = "A".repeat(62);
    const id = "3f1c9a3e-2b7d-4c1e-9a51-0c2f4b6d8e10";
    expect(parseToken(`${id.toUpperCase()}:${id}:${secret}`)).toEqual({
      error: "first part must be a lowercase UUID",
    });
    expect(parseToken(`${id}:${secret}`)).toEqual({
      error: 'must have three parts separated by ":" (got 2)',
    });
    expect(parseToken(`${id}:${id}:${"!".repeat(62)}`)).toEqual({ error: "last part must be alphanumeric" });
  });

  it("never puts the token into a schema error, a fingerprint or a redaction", () => {
    const token = `3f1c9a3e-2b7d-4c1e-9a51-0c2f4b6d8e10:9b2e6f0a-1c3d-4e5f-8a7b-6c5d4e3f2a1b:${"S".repeat(61)}`;
    const result = tokenSchema.safeParse(token);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error)).not.toContain("S".repeat(61));
    expect(tokenFingerprint(token)).not.toContain("SSSS");
    expect(redactToken(`${token}S`)).toBe("3f1c9a3e-2b7d-4c1e-9a51-0c2f4b6d8e10:***");
  });
});
