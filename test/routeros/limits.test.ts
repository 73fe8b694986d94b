import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RouterOsError } from "../../src/routeros/errors.js";
import { parseScript } from "../../src/routeros/language/parser.js";
import { MAX_NESTING, MAX_TOKEN_CHARS } from "../../src/routeros/limits.js";
import { runScript } from "../../src/routeros/runtime/interpreter.js";
import { failure, RecordingHost } from "./recording-host.js";

const parseFailure = (source: string): RouterOsError => {
  try {
    parseScript(source);
  } catch (error) {
    if (error instanceof RouterOsError) return error;
    throw error;
  }
  throw new Error("expected the parse to fail");
};

describe("memory budget", () => {
  it("ends an array-doubling loop with not enough memory at the :set", async () => {
    const error = await failure(
      runScript(
        ":local a {1;2}; :for i from=1 to=25 do={ :set a {$a;$a} }; :put [:len [:tostr $a]]",
        new RecordingHost(),
      ),
    );
    expect(error.message).toBe(
      "not enough memory: script values would exceed 4194304 bytes, the limit of this router (line 1 column 42)",
    );
  });

  it("ends string doubling with . and with quotes", async () => {
    for (const doubling of ["($s . $s)", '"$s$s"']) {
      const error = await failure(
        runScript(`:local s "ab"\n:for i from=1 to=40 do={ :set s ${doubling} }`, new RecordingHost()),
      );
      expect(error.text).toMatch(/^not enough memory/);
      expect(error.line).toBe(2);
    }
  });

  it("counts every live variable, so many mid-sized values fail too", async () => {
    const error = await failure(
      runScript(
        ':local s "0123456789abcdef"; :for i from=1 to=14 do={ :set s "$s$s" }\n' +
          ":local a $s; :local b $s; :local c $s; :local d $s; :local e $s",
        new RecordingHost(),
        { maxMemoryBytes: 2 << 20 },
      ),
    );
    expect(error.text).toMatch(/exceed 2097152 bytes/);
    expect(error.line).toBe(2);
  });

  it("frees a loop's locals at the end of each turn", async () => {
    const { output } = await runScript(
      ':local s "0123456789abcdef"; :for i from=1 to=14 do={ :set s "$s$s" }\n' +
        ':for i from=1 to=50 do={ :local copy "$s!" }; :put [:len $s]',
      new RecordingHost(),
      { maxMemoryBytes: 2 << 20 },
    );
    expect(output).toEqual(["262144"]);
  });

  it("stops arrays nested deeper than the limit, which printing would recurse through", async () => {
    const error = await failure(
      runScript(":local a {1}; :for i from=1 to=100000 do={ :set a {$a} }; :put $a", new RecordingHost()),
    );
    expect(error.message).toBe(`too deeply nested, at most ${MAX_NESTING} levels (line 1 column 44)`);
  });

  it("keeps a global's size from one run to the next", async () => {
    const globals = new Map();
    const host = new RecordingHost();
    await runScript(':global g "0123456789abcdef"; :for i from=1 to=15 do={ :set g "$g$g" }', host, {
      globals,
      maxMemoryBytes: 2 << 20,
    });
    const error = await failure(
      runScript(':global g; :local copy "$g$g"', host, { globals, maxMemoryBytes: 2 << 20 }),
    );
    expect(error.text).toMatch(/^not enough memory/);
  });

  it("lets other work run while a loop of cheap statements goes on", async () => {
    // Other work queued once the loop has begun (its first line out) must run before the loop ends. Queued
    // before the script, it could run before the first statement on a loaded machine: the interpreter also
    // yields after 4 ms, however few statements that was.
    let seenByOtherWork = -1;
    const output: string[] = [];
    let other: Promise<void> | undefined;
    await runScript(":for i from=1 to=5000 do={ :put $i }", new RecordingHost(), {
      onOutput: (line) => {
        output.push(line);
        other ??= new Promise<void>((resolve) =>
          setImmediate(() => {
            seenByOtherWork = output.length;
            resolve();
          }),
        );
      },
    });
    await other;
    expect(seenByOtherWork).toBeGreaterThan(0);
    expect(seenByOtherWork).toBeLessThan(5000);
  });
});

describe("parse limits", () => {
  it("refuses 900 nested parentheses with a parse error, not a stack overflow", () => {
    const error = parseFailure(`:put (${"(".repeat(900)}1${")".repeat(900)})`);
    expect(error.message).toBe(
      `too deeply nested, at most ${MAX_NESTING} levels (line 1 column ${6 + MAX_NESTING - 1})`,
    );
  });

  it("refuses deep brackets, braces, arrays, quotes, unary operators and long operator chains", () => {
    const deep = 2000;
    for (const source of [
      `:put ${"[:put ".repeat(deep)}`,
      `${"{".repeat(deep)}${"}".repeat(deep)}`,
      `:put ${"{".repeat(deep)}1${"}".repeat(deep)}`,
      `:put ${'"$('.repeat(deep)}`,
      `:put (${"-".repeat(deep)}1)`,
      `:put (${"!".repeat(deep)}true)`,
      `:put (1${"+1".repeat(deep)})`,
      `/ip address print where ${"disabled ".repeat(deep)}`,
    ]) {
      expect(parseFailure(source).text, source.slice(0, 30)).toBe(
        `too deeply nested, at most ${MAX_NESTING} levels`,
      );
    }
  });

  it("still runs the deepest nesting it accepts", async () => {
    const depth = MAX_NESTING - 2;
    const { output } = await runScript(
      `:put (${"(".repeat(depth)}1${")".repeat(depth)})`,
      new RecordingHost(),
    );
    expect(output).toEqual(["1"]);
  });

  it("refuses a string or word longer than the token limit", () => {
    const huge = "x".repeat(MAX_TOKEN_CHARS + 1);
    expect(parseFailure(`:put "${huge}"`).message).toBe(
      `string too long, at most ${MAX_TOKEN_CHARS} characters (line 1 column 7)`,
    );
    expect(parseFailure(`:put ${huge}`).text).toMatch(/^string too long/);
  });

  it("throws nothing but RouterOsError on random nesting", () => {
    const piece = fc.constantFrom(
      "(",
      ")",
      "[",
      "]",
      "{",
      "}",
      '"',
      "$(",
      "$[",
      "-",
      "!",
      "+1",
      " ",
      ";",
      "\n",
      "1",
      ":put ",
      "$a",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 3000 }), (pieces) => {
        try {
          parseScript(`:local a 1\n${pieces.join("")}`);
        } catch (error) {
          if (!(error instanceof RouterOsError)) throw error;
        }
      }),
      { numRuns: 300 },
    );
  });

  it("throws nothing but RouterOsError on deep random nesting", () => {
    // Openers that stay valid inside one another, so the parser really descends through all of them.
    const open = fc.constantFrom("(", "-", "!", '"$(', "[:put (", "(1+");
    fc.assert(
      fc.property(fc.array(open, { minLength: 1200, maxLength: 3000 }), (opens) => {
        expect(() => parseScript(`:put (${opens.join("")}1`)).toThrow(RouterOsError);
      }),
      { numRuns: 100 },
    );
  });
});
