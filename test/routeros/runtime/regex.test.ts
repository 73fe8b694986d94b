import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import type { CommandCall } from "../../../src/routeros/language/host.js";
import { quoteString } from "../../../src/routeros/language/quote.js";
import { MAX_REGEX_CHARS, MAX_REGEX_INSTRUCTIONS, MAX_REGEX_WORK } from "../../../src/routeros/limits.js";
import { runScript } from "../../../src/routeros/runtime/interpreter.js";
import { compileRegex, estimatedInstructions, matchesRegex } from "../../../src/routeros/runtime/regex.js";
import { RecordingHost } from "../recording-host.js";
import { fail, freshRouter, run } from "../simulator/helpers.js";
import { NFA_PATTERN, nfaSubject } from "./regex-subjects.js";

// Issue 45, finding 1: `~` went to JavaScript's RegExp, whose backtracking took 44 s for `(a+)+b` against 40
// characters and doubled with each more. On that matcher every test of this block hangs.
const catastrophic: ReadonlyArray<readonly [pattern: string, subject: string, matches: boolean]> = [
  ["(a+)+b", `${"a".repeat(40)}>`, false],
  ["(a+)+b", `b${"a".repeat(10_000)}>`, false],
  ["(a+)+b", `${"a".repeat(10_000)}b`, true],
  ["(a|a)*b", `${"a".repeat(40)}>`, false],
  ["(a|a)*b", `${"a".repeat(10_000)}>`, false],
  ["(a*)*b", `${"a".repeat(40)}>`, false],
  ["(a*)*b", `${"a".repeat(10_000)}>`, false],
  ["^(a|aa)+$", `${"a".repeat(10_000)}>`, false],
];

/** Output of a script that must succeed on a host with no items. */
async function put(script: string): Promise<string[]> {
  return [...(await runScript(script, new RecordingHost())).output];
}

describe("the ~ operator matches in linear time", () => {
  it.each(catastrophic)("%s against %#: the matcher alone", (pattern, subject, matches) => {
    expect(matchesRegex(subject, pattern)).toBe(matches);
  });

  it.each(catastrophic)("%s against %#: :put in a script", async (pattern, subject, matches) => {
    expect(await put(`:put (${quoteString(subject)} ~ ${quoteString(pattern)})`)).toEqual([String(matches)]);
  });

  it("`find where comment~` over 100 items of a simulated router, and `print where`", async () => {
    const router = freshRouter();
    const comment = `${"a".repeat(10_000)}>`;
    await run(
      router,
      `:for i from=1 to=100 do={ /ip firewall address-list add list=blocked address=("10.0.0." . $i) comment=${quoteString(comment)} }
/ip firewall address-list add list=blocked address=10.0.1.1 comment="aaab"`,
    );
    for (const pattern of ["(a+)+b", "(a|a)*b", "(a*)*b"]) {
      const found = await run(
        router,
        `:put [/ip firewall address-list get [find where comment~${quoteString(pattern)}] address]`,
      );
      expect(found).toBe("10.0.1.1");
    }
    const printed = await run(router, '/ip firewall address-list print count-only where comment~"(a+)+b"');
    expect(printed.trim()).toBe("1");
  });
});

describe("the ~ operator's syntax", () => {
  it.each([
    ["x12", "^[[:alpha:]][[:digit:]]+$", true],
    ["x1a", "^[[:alpha:]][[:digit:]]+$", false],
    ["dead BEEF", "^[[:xdigit:]]+[[:space:]][[:upper:]]+$", true],
    ["a-b", "[[:punct:]]", true],
    ["ab", "[[:punct:]]", false],
    ["ether1", "^(ether|sfp)[0-9]{1,2}$", true],
    ["ether123", "^(ether|sfp)[0-9]{1,2}$", false],
    ["]", "[]a]", true],
    ["line one\nline two", "one.line", true],
    ["line one\nline two", "^line two", false],
    ["uplink to ISP", "ISP$", true],
  ])(
    "%j ~ %j is %s (POSIX classes, bounds, brackets, `.` across a newline)",
    async (subject, pattern, matches) => {
      expect(await put(`:put (${quoteString(subject)} ~ ${quoteString(pattern)})`)).toEqual([
        String(matches),
      ]);
    },
  );

  it.each([
    ["(a)\\1", /invalid regular expression "\(a\)\\\\1": backreferences \(\\1\) are not supported/],
    ["(?=a)a", /lookahead and lookbehind .* are not supported/],
    ["(?<!a)b", /lookahead and lookbehind .* are not supported/],
    ["[[=e=]]", /equivalence classes and collating elements \(\[=e=\]\) are not supported/],
    ["[[.hyphen.]]", /equivalence classes and collating elements \(\[\.hyphen\.\]\) are not supported/],
    ["(", /^invalid regular expression "\(": missing closing \) \(line 1 column 1\)$/],
    ["a{2,1}", /invalid repeat count in "\{2,1\}"/],
    ["x{1001}", /invalid repeat count in "\{1001\}"/],
    [
      "[a-z]{1000}".repeat(11),
      new RegExp(`it compiles to more than ${MAX_REGEX_INSTRUCTIONS} instructions, the limit of this router`),
    ],
    [
      "a".repeat(MAX_REGEX_CHARS + 1),
      new RegExp(
        `regular expression of ${MAX_REGEX_CHARS + 1} characters, more than ${MAX_REGEX_CHARS}, the limit of this router`,
      ),
    ],
  ])("%# is refused with an error that names the problem", async (pattern, error) => {
    const outcome = runScript(`:put ("a" ~ ${quoteString(pattern)})`, new RecordingHost());
    await expect(outcome).rejects.toThrow(error);
  });

  it("a simulated router gives the same error with the command's position", async () => {
    const error = await fail(freshRouter(), ':put [/interface find where name~"(ether)\\\\1"]');
    expect(error).toMatch(
      /^invalid regular expression "\(ether\)\\\\1": backreferences \(\\1\) are not supported.*\(line 1 column \d+\)$/,
    );
  });

  it("bounds the work of one match: subject characters + 1 times instructions", async () => {
    // `x` compiles to 3 instructions (RE2's fail, the rune, match).
    const longest = Math.floor(MAX_REGEX_WORK / 3) - 1;
    expect(matchesRegex(`${"y".repeat(longest - 1)}x`, "x")).toBe(true);
    expect(() => matchesRegex("y".repeat(longest + 1), "x")).toThrow(
      `regular expression "x" (3 instructions) against ${longest + 1} characters: more than ${MAX_REGEX_WORK} steps of matching, the limit of this router`,
    );
  });
});

describe("the cache of compiled patterns", () => {
  it("keeps a few MiB, whatever states its patterns made RE2's DFA build", () => {
    // RE2 builds up to 8 MiB of DFA states a pattern: 64 such patterns cached with all their states would hold
    // ten times this bound.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const subject = nfaSubject(5000);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let k = 0; k < 64; k++) compileRegex(`a[ab]{${30 + (k % 5)}}$|x${k}`).test(subject);
    gc();
    expect((process.memoryUsage().heapUsed - before) / 2 ** 20).toBeLessThan(16);
  });
});

describe("a statement of many matches", () => {
  it("takes turns of the event loop between them, as a loop does between statements", async () => {
    // One statement: a command marks its start, then twenty matches of a pattern that keeps RE2 on its NFA
    // (milliseconds each). The abort can only be seen if the interpreter lets a turn of the event loop run
    // inside the statement: before, the script ended with the statement, unaware of it.
    const subject = nfaSubject(MAX_REGEX_WORK / 40);
    const matches = Array.from({ length: 20 }, () => `($s ~ ${quoteString(NFA_PATTERN)})`).join("; ");
    const controller = new AbortController();
    const host = new RecordingHost();
    const execute = host.execute.bind(host);
    host.execute = (call: CommandCall) => {
      setImmediate(() => controller.abort(new Error("aborted inside the statement")));
      return execute(call);
    };
    const script = `:local s ${quoteString(subject)}\n:put [:len {[/system identity print]; ${matches}}]`;
    await expect(runScript(script, host, { signal: controller.signal })).rejects.toThrow(
      "aborted inside the statement",
    );
  });
});

/** The same pattern in RE2's (POSIX) syntax and in JavaScript's, built from the constructs they share. */
interface Pair {
  readonly re2: string;
  readonly js: string;
}

const same = (text: string): Pair => ({ re2: text, js: text });
const literal = fc.constantFrom("a", "b", "1", " ", "-", "\\.").map(same);
const posixClass = fc.constantFrom(
  { re2: "[[:digit:]]", js: "[0-9]" },
  { re2: "[[:alpha:]]", js: "[A-Za-z]" },
  { re2: "[[:upper:]]", js: "[A-Z]" },
  { re2: "[[:alnum:]]", js: "[0-9A-Za-z]" },
  { re2: "[[:space:]]", js: "[\\t\\n\\v\\f\\r ]" },
  { re2: "[^[:digit:]]", js: "[^0-9]" },
);
const bracket = fc.constantFrom("[ab]", "[^a]", "[a-c]", "[-1]", "[b.]", "\\d", ".").map(same);
const atom = fc.oneof(literal, posixClass, bracket);
const quantifier = fc.oneof(
  fc.constantFrom("", "", "*", "+", "?"),
  fc
    .tuple(fc.nat(2), fc.option(fc.nat(2)))
    .map(([min, extra]) => `{${min}${extra === null ? "" : `,${min + extra}`}}`),
);
const pattern: fc.Arbitrary<Pair> = fc
  .letrec<{ alternation: Pair; piece: Pair }>((tie) => ({
    piece: fc
      .tuple(
        fc.oneof(
          { maxDepth: 2, withCrossShrink: true },
          atom,
          tie("alternation").map((inner) => ({ re2: `(${inner.re2})`, js: `(${inner.js})` })),
        ),
        quantifier,
      )
      .map(([inner, q]) => ({ re2: inner.re2 + q, js: inner.js + q })),
    alternation: fc
      .array(
        fc.array(tie("piece"), { maxLength: 4 }).map((pieces) => ({
          re2: pieces.map((p) => p.re2).join(""),
          js: pieces.map((p) => p.js).join(""),
        })),
        { minLength: 1, maxLength: 3 },
      )
      .map((branches) => ({
        re2: branches.map((b) => b.re2).join("|"),
        js: branches.map((b) => b.js).join("|"),
      })),
  }))
  .alternation.chain((body) =>
    fc.tuple(fc.boolean(), fc.boolean()).map(([start, end]) => ({
      re2: `${start ? "^" : ""}${body.re2}${end ? "$" : ""}`,
      js: `${start ? "^" : ""}${body.js}${end ? "$" : ""}`,
    })),
  );
const subject = fc
  .array(fc.constantFrom("a", "b", "c", "1", "7", " ", "\n", "-", ".", "A", "Z"), { maxLength: 12 })
  .map((chars) => chars.join(""));

describe("the matcher against JavaScript's RegExp", () => {
  it("agrees on patterns of literals, classes, anchors, alternation and bounded repetition", () => {
    fc.assert(
      fc.property(pattern, subject, (p, s) => {
        // `s`: POSIX's `.` matches a newline; RE2's `s` flag does the same.
        expect(matchesRegex(s, p.re2)).toBe(new RegExp(p.js, "s").test(s));
      }),
      { numRuns: 2000 },
    );
  });

  it("estimates no fewer instructions than RE2 compiles, so the size limit holds before compiling", () => {
    fc.assert(
      fc.property(pattern, (p) => {
        expect(estimatedInstructions(p.re2)).toBeGreaterThanOrEqual(
          RE2JS.compile(p.re2, RE2JS.DOTALL).programSize(),
        );
      }),
      { numRuns: 2000 },
    );
  });
});
