import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tokenize } from "../../../src/routeros/language/lexer.js";
import { quoteString, quoteValue } from "../../../src/routeros/language/quote.js";

/** What the lexer reads back from one argument written by the quoter. */
function readBack(literal: string): string {
  const tokens = tokenize(`x=${literal}`).slice(2, -1);
  return tokens
    .filter((token) => token.kind === "word" || token.kind === "text")
    .map((token) => token.text)
    .join("");
}

describe("quoteValue", () => {
  it.each([
    ["ether1", "ether1"],
    ["10.0.0.1/24", "10.0.0.1/24"],
    ["00:11:22:AA:BB:CC", "00:11:22:AA:BB:CC"],
    ["*1A", "*1A"],
    ["", '""'],
    ["two words", '"two words"'],
    ["a;b", '"a;b"'],
    ['say "hi"', '"say \\"hi\\""'],
    ["$var", '"\\$var"'],
    ["what?", '"what\\?"'],
    ["back\\slash", '"back\\\\slash"'],
    ["line\nbreak\r\ttab", '"line\\nbreak\\r\\ttab"'],
    ["bell\x07\x7f", '"bell\\07\\7F"'],
    ["#hash", '"#hash"'],
    ["!LAN", "!LAN"],
    ["!dstnat,srcnat", "!dstnat,srcnat"],
    ["!", '"!"'],
    ["a!b", '"a!b"'],
    ["!!x", '"!!x"'],
    ["ünïcødé ☃", '"ünïcødé ☃"'],
  ])("%j -> %s", (value, literal) => {
    expect(quoteValue(value)).toBe(literal);
    expect(readBack(literal)).toBe(value);
  });

  it("always quotes with quoteString", () => {
    expect(quoteString("detail")).toBe('"detail"');
  });

  it("reads back as exactly the value, whatever it holds", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc.string({ unit: fc.constantFrom(...'"\\$?;[]{}() \n\r\t=#!_aA0'.split("")) }),
        ),
        (value) => {
          expect(readBack(quoteValue(value))).toBe(value);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
