import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RouterOsError } from "../../../src/routeros/errors.js";
import { Lexer, tokenize } from "../../../src/routeros/language/lexer.js";

const kinds = (source: string) => tokenize(source).map((token) => `${token.kind}:${token.text}`);

describe("tokenize", () => {
  it("splits a command into words, = and separators with 1-based positions", () => {
    const tokens = tokenize("/ip address add address=10.0.0.1/24;\nprint");
    expect(tokens.map((t) => `${t.kind}:${t.text}@${t.line}:${t.column}`)).toEqual([
      "word:/ip@1:1",
      "word:address@1:5",
      "word:add@1:13",
      "word:address@1:17",
      "=:=@1:24",
      "word:10.0.0.1/24@1:25",
      ";:;@1:36",
      "eol:\n@1:37",
      "word:print@2:1",
      "eof:@2:6",
    ]);
  });

  it("keeps MAC addresses, ids and negations as one word in command mode", () => {
    expect(kinds("mac-address=00:11:22:AA:BB:CC src=!10.0.0.0/8 *1A")).toEqual([
      "word:mac-address",
      "=:=",
      "word:00:11:22:AA:BB:CC",
      "word:src",
      "=:=",
      "word:!10.0.0.0/8",
      "word:*1A",
      "eof:",
    ]);
  });

  it("marks tokens glued to the previous one as not spaced", () => {
    const tokens = tokenize('name=wan$x"y"');
    expect(tokens.map((t) => t.spaced)).toEqual([false, false, false, false, false, false, false, false]);
    expect(tokenize("a  b")[1]?.spaced).toBe(true);
  });

  it("reads strings as text chunks, variables and substitutions", () => {
    expect(kinds('"a $b $"c d" $[x] $(y) e"')).toEqual([
      'quote:"',
      "text:a ",
      "var:b",
      "text: ",
      "var:c d",
      "text: ",
      "subst:$[",
      "word:x",
      "]:]",
      "text: ",
      "expr-subst:$(",
      "word:y",
      "):)",
      "text: e",
      'quote:"',
      "eof:",
    ]);
  });

  it("lexes operators inside parentheses", () => {
    expect(kinds('($a-1 != 2 && !$b || $c~"x")')).toEqual([
      "(:(",
      "var:a",
      "op:-",
      "word:1",
      "op:!=",
      "word:2",
      "op:&&",
      "op:!",
      "var:b",
      "op:||",
      "var:c",
      "op:~",
      'quote:"',
      "text:x",
      'quote:"',
      "):)",
      "eof:",
    ]);
  });

  it("skips a # comment at the start of a command only", () => {
    expect(kinds("# note ; not a command\nadd comment=a#b")).toEqual([
      "eol:\n",
      "word:add",
      "word:comment",
      "=:=",
      "word:a#b",
      "eof:",
    ]);
  });

  it("joins lines ending with a backslash", () => {
    const tokens = tokenize("add \\\n  name=x");
    expect(tokens.map((t) => `${t.kind}:${t.text}@${t.line}:${t.column}`)).toEqual([
      "word:add@1:1",
      "word:name@2:3",
      "=:=@2:7",
      "word:x@2:8",
      "eof:@2:9",
    ]);
    expect(kinds('"a\\\nb"')).toEqual(['quote:"', "text:ab", 'quote:"', "eof:"]);
  });

  it("treats CR LF and a lone CR as one line end each", () => {
    expect(tokenize("a\r\nb\rc").map((t) => `${t.text}@${t.line}`)).toEqual([
      "a@1",
      "\n@1",
      "b@2",
      "\n@2",
      "c@3",
      "@3",
    ]);
  });

  it("rejects a $ without a name and a stray operator character", () => {
    expect(() => tokenize("put $ x")).toThrow(/^syntax error \(line 1 column 5\)$/);
    expect(() => new Lexer("@").next("expression")).toThrow(RouterOsError);
  });
});

describe("escapes", () => {
  const table: [string, string][] = [
    ['\\"', '"'],
    ["\\\\", "\\"],
    ["\\n", "\n"],
    ["\\r", "\r"],
    ["\\t", "\t"],
    ["\\$", "$"],
    ["\\?", "?"],
    ["\\_", " "],
    ["\\a", "\x07"],
    ["\\b", "\b"],
    ["\\f", "\f"],
    ["\\v", "\v"],
    ["\\41", "A"],
    ["\\4C\\4C", "LL"],
    ["\\00", "\0"],
    ["\\FF", "\xff"],
    ["\\ab", "\x07b"],
    ["\\z", "z"],
  ];
  it.each(table)("decodes %s inside quotes", (written, expected) => {
    const text = tokenize(`"${written}"`)
      .filter((t) => t.kind === "text")
      .map((t) => t.text)
      .join("");
    expect(text).toBe(expected);
  });

  it("decodes escapes in unquoted words and marks them", () => {
    const [word] = tokenize("a\\_b");
    expect(word).toMatchObject({ kind: "word", text: "a b", escaped: true });
  });

  it("fails on a backslash at the end of input", () => {
    expect(() => tokenize('"abc\\')).toThrow(RouterOsError);
  });
});

describe("lexer robustness", () => {
  it("throws nothing but RouterOsError on arbitrary input", () => {
    const alphabet = fc.constantFrom(...'abc$"\\[](){};=#:/ \n\r\t!~<>&|.-*_?4F'.split(""));
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: alphabet, maxLength: 60 })),
        (source) => {
          try {
            tokenize(source);
          } catch (error) {
            if (!(error instanceof RouterOsError) || error.line === undefined) throw error;
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
