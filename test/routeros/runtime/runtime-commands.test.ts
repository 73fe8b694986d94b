/** `:time`, `:parse`, `:execute as-string` and `:environment print` (background `:execute`: test/routeros/simulator). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RouterOsError } from "../../../src/routeros/errors.js";
import { quoteString } from "../../../src/routeros/language/quote.js";
import { runScript } from "../../../src/routeros/runtime/interpreter.js";
import type { Cell } from "../../../src/routeros/runtime/scope.js";
import { timeText } from "../../../src/routeros/runtime/values.js";
import { failure, RecordingHost } from "../recording-host.js";

const run = async (source: string, host = new RecordingHost()) => (await runScript(source, host)).output;

describe(":time", () => {
  it("prints as RouterOS prints times", () => {
    expect([1, 1000, 90_000, 1500, 86_400_000 + 7_200_000, 9 * 86_400_000].map(timeText)).toEqual([
      "00:00:00.001",
      "00:00:01",
      "00:01:30",
      "00:00:01.500",
      "1d02:00:00",
      "1w2d00:00:00",
    ]);
  });

  it("gives the simulated duration: the :delay time inside plus 1 ms per 1,000 statements started", async () => {
    const host = new RecordingHost();
    expect(await run(":put [:time {:put 1}]", host)).toEqual(["1", "00:00:00.001"]);
    expect(await run(":put [:time {:delay 1500ms}]", host)).toEqual(["00:00:01.501"]);
    expect(await run(":put [:time {:for i from=1 to=2500 do={}}]")).toEqual(["00:00:00.003"]);
    expect(host.delays).toEqual([1500]);
  });

  it("runs the block in the caller's scope and keeps its effects", async () => {
    expect(await run(":local n 1; :local t [:time {:set n ($n + 1)}]; :put $n")).toEqual(["2"]);
  });

  it("fails without a command, naming the argument", async () => {
    const error = await failure(run(":time"));
    expect(error.message).toBe("missing value(s) of argument(s) command (line 1 column 1)");
    expect((await failure(run(":time {:put 1} x=2"))).message).toBe("syntax error (line 1 column 16)");
  });
});

describe(":parse", () => {
  it("returns code that $f and [$f] run, with arguments as a function gets them", async () => {
    expect(
      await run(
        ':local f [:parse ":put (\\$a + \\$1)"]; $f 2 a=1; :put [:typeof $f]; ' +
          ':local g [:parse ":return (\\$1 * 2)"]; :put [$g 21]',
      ),
    ).toEqual(["3", "code", "42"]);
  });

  it("runs in a scope of its own: the caller's locals are nil there, globals shared", async () => {
    expect(
      await run(
        ':global shared 7; :local mine 5; :local f [:parse ":global shared; :put \\"\\$mine/\\$shared\\""]; $f',
      ),
    ).toEqual(["/7"]);
  });

  it("fails at :parse, with RouterOS's text and the place in the parsed source, before anything runs", async () => {
    const host = new RecordingHost();
    const error = await failure(run(':local f [:parse ":put (1"]; :put after', host));
    expect(error.text).toBe("syntax error");
    expect(error.message).toBe("syntax error (line 1 column 8)");
    expect((await failure(run(':local f [:parse "/ip adress print"]'))).message).toBe(
      "bad command name adress (line 1 column 5)",
    );
  });

  it("fails without a value, naming the argument", async () => {
    expect((await failure(run(":parse"))).message).toBe(
      "missing value(s) of argument(s) value (line 1 column 1)",
    );
  });

  it("runs any small script as the script itself runs (output, or the same error)", async () => {
    const name = fc.constantFrom("a", "b", "c");
    const number = fc.integer({ min: -5, max: 5 });
    const operator = fc.constantFrom("+", "-", "*", "/", "<", "=");
    const statement = fc.oneof(
      fc.tuple(name, number).map(([n, v]) => `:set ${n} ${v}`),
      fc.tuple(name, operator, name).map(([l, o, r]) => `:put ($${l} ${o} $${r})`),
      fc.string({ maxLength: 8 }).map((text) => `:put ${quoteString(text)}`),
      fc.tuple(name, name).map(([l, r]) => `:if ($${l} < $${r}) do={ :put lt } else={ :put ge }`),
      fc.tuple(name, number).map(([n, to]) => `:for i from=0 to=${to} do={ :set ${n} ($${n} + $i) }`),
    );
    const script = fc
      .array(statement, { maxLength: 6 })
      .map((lines) => [":local a 1", ":local b 2", ":local c 0", ...lines].join("\n"));
    const outcome = async (source: string) => {
      try {
        return { output: await run(source) };
      } catch (error) {
        return { error: (error as RouterOsError).message };
      }
    };
    await fc.assert(
      fc.asyncProperty(script, async (source) => {
        const direct = await outcome(source);
        const parsed = await outcome(`:local s ${quoteString(source)}\n:local f [:parse $s]\n$f`);
        expect(parsed).toEqual(direct);
      }),
      { numRuns: 150 },
    );
  });
});

describe(":execute as-string", () => {
  it("runs now and gives what the script printed, which the caller's output does not get", async () => {
    expect(
      await run(":local out [:execute as-string {:put hi; :put there}]; :put [:len $out]; :put $out"),
    ).toEqual(["8", "hi", "there"]);
    expect(await run(':put [:execute script=":put (1 + 2)" as-string]')).toEqual(["3"]);
  });

  it("sees no local of the caller", async () => {
    expect(await run(':local x 5; :put [:execute as-string {:put "x=$x"}]')).toEqual(["x="]);
  });

  it("fails as the script fails, and names a missing or extra argument", async () => {
    expect((await failure(run(':execute as-string {:error "boom"}'))).text).toBe("boom");
    expect((await failure(run(":execute as-string"))).message).toBe(
      "missing value(s) of argument(s) script (line 1 column 1)",
    );
    expect((await failure(run(':execute {:put 1} script=":put 2"'))).text).toBe("expected end of command");
    expect((await failure(run(":execute {:put 1} colour=red"))).text).toBe("syntax error");
  });

  it("is bounded by the statement limit of the script that runs it", async () => {
    const error = await failure(
      runScript(":execute as-string {:while (true) do={}}", new RecordingHost(), { maxStatements: 1000 }),
    );
    expect(error.text).toBe("script stopped after 1000 statements, the limit of this router");
  });

  it("fails in the background on a host that runs no jobs", async () => {
    expect((await failure(run(":execute {:put 1}"))).text).toBe(
      "failure: :execute is not available on this host",
    );
  });
});

describe(":environment print", () => {
  it("lists the globals as RouterOS writes them", async () => {
    const globals = new Map<string, Cell>();
    const { output } = await runScript(
      ':global n 5; :global s "a b"; :global list {1;"x";true}; :global none; :global f do={ :put 1 }; ' +
        ":local hidden 1; :environment print",
      new RecordingHost(),
      { globals },
    );
    expect(output).toEqual(["n=5", 's="a b"', 'list={1; "x"; true}', "none=", "f=(code)"]);
  });

  it("knows only print", async () => {
    expect((await failure(run(":environment list"))).message).toBe(
      "bad command name list (line 1 column 14)",
    );
    expect((await failure(run(":environment"))).text).toBe("syntax error");
    expect((await failure(run(":environment print extra"))).text).toBe("expected end of command");
  });
});
