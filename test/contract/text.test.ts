import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  charCount,
  SYNC_COMMAND_MAX_CHARS,
  SYNC_PARAMETERS_MAX_CHARS,
  syncRequestSchema,
  truncateChars,
  unstorableStrings,
  unstorableText,
} from "../../src/contract/index.js";

/** One code point that is not a surrogate half: ASCII, BMP and astral alike. */
const codePoint = fc.oneof(
  fc.integer({ min: 1, max: 0x7f }),
  fc.integer({ min: 0x80, max: 0xd7ff }),
  fc.integer({ min: 0x10000, max: 0x10ffff }),
);
const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));

describe("characters", () => {
  it("counts code points, so an astral character is one, not two", () => {
    fc.assert(
      fc.property(fc.array(codePoint, { maxLength: 300 }), (points) => {
        expect(charCount(String.fromCodePoint(...points))).toBe(points.length);
      }),
    );
    expect(charCount("😀".repeat(100))).toBe(100);
    expect("😀".repeat(100).length).toBe(200);
  });

  it("truncates to whole characters and never splits a surrogate pair", () => {
    fc.assert(
      fc.property(fc.array(codePoint, { maxLength: 150 }), fc.nat(120), (points, max) => {
        const cut = truncateChars(String.fromCodePoint(...points), max);
        expect(cut).toBe(String.fromCodePoint(...points.slice(0, max)));
        expect(unstorableText(cut)).toBeUndefined();
      }),
    );
  });
});

describe("storable text", () => {
  it("refuses NUL and unpaired surrogates anywhere, and nothing else", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.string({ unit: "binary" }),
        lone,
        (before, after, half) => {
          const clean = `${before}${after}`.replaceAll("\u0000", "");
          expect(unstorableText(clean)).toBeUndefined();
          expect(unstorableText(`${before}\u0000${after}`)).toBe("must not contain NUL characters (\\u0000)");
          expect(unstorableText(`${clean}${half}`)).toMatch(/unpaired UTF-16 surrogates/);
        },
      ),
    );
    // A pair is one character; either half alone, or the halves reversed, is not text.
    expect(unstorableText("\ud83d\ude00")).toBeUndefined();
    expect(unstorableText("\ude00\ud83d")).toMatch(/unpaired/);
  });

  it("finds bad strings in values and field names at any depth, with their path", () => {
    const issues = unstorableStrings({
      description: "ok",
      status: "running\u0000",
      extra: { list: ["fine", "half \ud800"], "bad\u0000key": { hidden: "\u0000" } },
    });
    expect(issues.map((issue) => [issue.path.join("."), issue.message]).sort()).toEqual([
      ["extra", "a field name in extra must not contain NUL characters (\\u0000)"],
      ["extra.list.1", "extra.list.1 must not contain unpaired UTF-16 surrogates (\\ud800-\\udfff)"],
      ["status", "status must not contain NUL characters (\\u0000)"],
    ]);
    expect(unstorableStrings({ a: ["x", 1, null, true, { b: "y" }] })).toEqual([]);
  });

  it("walks deep nesting without overflowing the stack, and reports at most 10 strings", () => {
    let deep: unknown = "\u0000";
    for (let depth = 0; depth < 100_000; depth++) deep = [deep];
    expect(unstorableStrings(deep)).toHaveLength(1);
    expect(unstorableStrings(Array.from({ length: 1000 }, () => "\u0000"))).toHaveLength(10);
  });
});

describe("synchronous request limits", () => {
  const issuesOf = (input: unknown) => {
    const result = syncRequestSchema.safeParse(input);
    return result.success ? [] : result.error.issues.map((issue) => issue.message);
  };

  it("counts command and parameters in characters, at the edges, with astral characters", () => {
    fc.assert(
      fc.property(fc.integer({ min: -3, max: 3 }), fc.constantFrom("a", "é", "😀"), (delta, char) => {
        const command = `/${char.repeat(SYNC_COMMAND_MAX_CHARS - 1 + delta)}`;
        const parameters = `=${char.repeat(SYNC_PARAMETERS_MAX_CHARS - 1 + delta)}`;
        const expected =
          delta <= 0
            ? []
            : [
                `command must be at most ${SYNC_COMMAND_MAX_CHARS} characters (got ${SYNC_COMMAND_MAX_CHARS + delta})`,
                `parameters must be at most ${SYNC_PARAMETERS_MAX_CHARS} characters (got ${SYNC_PARAMETERS_MAX_CHARS + delta})`,
              ];
        expect(issuesOf({ command, parameters })).toEqual(expected);
      }),
    );
  });

  it("refuses NUL and unpaired surrogates by field, and an empty command", () => {
    expect(issuesOf({ command: "/system/identity/set", parameters: "=name=a\u0000b" })).toEqual([
      "parameters must not contain NUL characters (\\u0000)",
    ]);
    expect(issuesOf({ command: "/ip/\udc00/print" })).toEqual([
      "command must not contain unpaired UTF-16 surrogates (\\ud800-\\udfff)",
    ]);
    expect(issuesOf({ command: "" })).toEqual(["command must not be empty"]);
  });
});
