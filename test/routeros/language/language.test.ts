import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RouterOsError } from "../../../src/routeros/errors.js";
import type { CommandNode } from "../../../src/routeros/language/ast.js";
import type { CommandCatalog } from "../../../src/routeros/language/host.js";
import { tokenize } from "../../../src/routeros/language/lexer.js";
import { parseScript } from "../../../src/routeros/language/parser.js";
import { quoteValue } from "../../../src/routeros/language/quote.js";
import { runScript } from "../../../src/routeros/runtime/interpreter.js";
import { failure, MENUS, RecordingHost, testCatalog } from "../recording-host.js";

const run = async (source: string, host = new RecordingHost()) => (await runScript(source, host)).output;
/** The parse without positions, to compare two spellings of one script. */
const shape = (source: string): unknown =>
  JSON.parse(
    JSON.stringify(parseScript(source).body.statements, (key, value) =>
      key === "line" || key === "column" ? undefined : value,
    ),
  );

describe("continued lines (export wrapping)", () => {
  it("reads a value wrapped right after = as the whole value", () => {
    const [command] = parseScript("/ip address add address=192.168.88.1/24 network=\\\n    192.168.88.0").body
      .statements as CommandNode[];
    expect(command?.named.map((arg) => [arg.name, arg.value])).toMatchObject([
      ["address", { value: "192.168.88.1/24" }],
      ["network", { value: "192.168.88.0" }],
    ]);
  });

  it("joins a quoted string without the next line's indentation", async () => {
    expect(await run(':put "abc\\\n    def"')).toEqual(["abcdef"]);
    expect(await run(':put "abc \\\r\n\tdef"')).toEqual(["abc def"]);
  });

  it("keeps an escaped backslash before a line end as a backslash", async () => {
    expect(await run(':put "a\\\\"\n:put b')).toEqual(["a\\", "b"]);
  });

  it("reports positions in the source as written", () => {
    const tokens = tokenize("add name=\\\n    wan comment=x");
    expect(tokens.map((t) => `${t.text}@${t.line}:${t.column}`)).toEqual([
      "add@1:1",
      "name@1:5",
      "=@1:9",
      "wan@2:5",
      "comment@2:9",
      "=@2:16",
      "x@2:17",
      "@2:18",
    ]);
    expect(() => parseScript("/ip address add address=\\\n    10.0.0.1 ]")).toThrow("(line 2 column 14)");
  });

  it("parses an export line the same wherever it is wrapped at a blank or after =", () => {
    const word = fc.stringMatching(/^[a-z0-9][a-z0-9./:-]{0,12}$/);
    const text = fc.stringMatching(/^[a-zA-Z0-9 ,.:;$"\\-]{0,20}$/);
    const pair = fc.tuple(fc.stringMatching(/^[a-z][a-z-]{0,10}$/), fc.oneof(word, text.map(quoteValue)));
    fc.assert(
      fc.property(fc.array(pair, { minLength: 1, maxLength: 6 }), fc.array(fc.nat()), (pairs, cuts) => {
        const line = `/ip address add ${pairs.map(([name, value]) => `${name}=${value}`).join(" ")}`;
        // Places to wrap: a blank (it stays before the backslash) and an `=`. Not a blank followed by another
        // one: the next line's leading blanks are dropped, so no writer wraps there.
        const places = [...line.matchAll(/ (?![ \t])|=/g)].map((match) => match.index);
        const chosen = new Set(cuts.map((cut) => places[cut % places.length]));
        let wrapped = "";
        for (const [index, char] of [...line].entries())
          wrapped += chosen.has(index) ? `${char}\\\n    ` : char;
        expect(shape(wrapped)).toEqual(shape(line));
      }),
      { numRuns: 300 },
    );
  });
});

describe("menu blocks", () => {
  it("runs the commands of /menu { ... } relative to that menu, and leaves the current menu alone", async () => {
    const host = new RecordingHost();
    await runScript(
      "/interface\n/ip address {\n  # comment\n  add address=10.0.0.1/24; add address=10.0.0.2/24\n}\nprint",
      host,
    );
    expect(host.calls.map((call) => `${call.menu.join("/")} ${call.verb}`)).toEqual([
      "ip/address add",
      "ip/address add",
      "interface print",
    ]);
  });
});

describe("functions", () => {
  it("passes unnamed arguments as $1 $2, named ones by name, and $0 as the function", async () => {
    expect(await run(':local f do={ :return "$0|$1|$2|$name|$missing" }\n:put [$f a "b c" name=N]')).toEqual([
      "$f|a|b c|N|",
    ]);
  });

  it("runs a function as a command and keeps going", async () => {
    const host = new RecordingHost();
    await runScript(
      ":global addIp do={ /ip address add address=$1 }\n$addIp 10.0.0.1/24\n$addIp 10.0.0.2/24",
      host,
    );
    expect(host.items("ip/address").map((item) => item.address)).toEqual(["10.0.0.1/24", "10.0.0.2/24"]);
  });

  it("recurses through a global it declares, and ends the script with :return at the top", async () => {
    expect(
      await run(
        ":global fact do={ :global fact; :if ($1 <= 1) do={ :return 1 }; :return ($1 * [$fact ($1 - 1)]) }\n" +
          ":put [$fact 10]\n:return 5\n:put after",
      ),
    ).toEqual(["3628800"]);
  });

  it("does not see the caller's locals", async () => {
    expect(await run(':local x 1; :local f do={ :return "[$x]" }; :put [$f]')).toEqual(["[]"]);
  });

  it("limits the depth of calls", async () => {
    const error = await failure(
      runScript(":global loop do={ :global loop; $loop }; $loop", new RecordingHost()),
    );
    expect(error.message).toBe(
      "function calls nested deeper than 100, the limit of this router (line 1 column 33)",
    );
  });

  it("fails calling a variable that holds no function", async () => {
    const error = await failure(runScript(":local x 1; $x", new RecordingHost()));
    expect(error.message).toBe("bad command name $x (line 1 column 13)");
  });

  it("still rejects undeclared variables outside function bodies", () => {
    expect(() => parseScript(":local f do={ :put $wan }; :put $wan")).toThrow(
      "syntax error (line 1 column 34)",
    );
  });

  it("reads $0 and $1 outside a function body as nil: the script may be run as a function", async () => {
    const host = new RecordingHost();
    const result = await runScript(':if ($1 = "print") do={ :put "listing" } else={ :put "usage" }', host);
    expect(result.output).toEqual(["usage"]);
  });
});

describe(":toarray, :find, /quit", () => {
  it("converts text to arrays at commas", async () => {
    expect(
      await run(':put [:len [:toarray "a,b,c"]]; :put [:typeof [:toarray ""]]; :put [:toarray {1;2}]'),
    ).toEqual(["3", "array", "1;2"]);
  });

  it("finds substrings and array items after a start position, nil when absent", async () => {
    expect(
      await run(
        ':put [:find "abcabc" "b"]; :put [:find "abcabc" "b" 1]; :put [:find "abc" "a" -1]; :put [:typeof [:find "abc" "z"]]; :put [:find {1;2;3} 3]',
      ),
    ).toEqual(["1", "4", "0", "nil", "2"]);
  });

  it("/quit ends the script without an error", async () => {
    expect(await run(":put 1; /quit; :put 2")).toEqual(["1"]);
    expect(await run(":put 1\n/ip address\nquit\n:put 2")).toEqual(["1"]);
  });
});

describe("where without and", () => {
  it("requires conditions written one after another to all hold", async () => {
    const host = new RecordingHost({
      "ip/address": [
        { address: "10.0.0.1/24", interface: "ether1", disabled: "false" },
        { address: "10.0.0.2/24", interface: "ether1", disabled: "true" },
        { address: "10.0.0.3/24", interface: "ether2", disabled: "true" },
      ],
    });
    await runScript("/ip address print where disabled interface=ether1", host);
    expect(host.calls[0]?.where?.({ disabled: "true", interface: "ether1" })).toBe(true);
    expect(host.calls[0]?.where?.({ disabled: "true", interface: "ether2" })).toBe(false);
    expect(host.calls[0]?.where?.({ disabled: "false", interface: "ether1" })).toBe(false);
  });
});

describe("abbreviations", () => {
  const names = (path: readonly string[]): string[] => {
    const prefix = path.join("/");
    const menus = Object.keys(MENUS)
      .filter((menu) => menu !== "" && menu.split("/").slice(0, -1).join("/") === prefix)
      .map((menu) => menu.split("/").at(-1) ?? "");
    return [...menus, ...(MENUS[prefix] ?? [])];
  };
  const catalog: CommandCatalog = {
    ...testCatalog,
    namesAt: names,
    argumentsOf: (_path, verb) => (verb === "add" ? ["address", "interface", "comment"] : []),
    hasArgument: (_path, verb, name) => verb !== "add" || ["address", "interface", "comment"].includes(name),
  };
  class AbbreviatingHost extends RecordingHost {
    override readonly catalog = catalog;
  }

  it("accepts unique prefixes of menus, commands and arguments", async () => {
    const host = new AbbreviatingHost();
    await runScript("/ip addr a addr=10.0.0.1/24 int=ether1\n/int pr", host);
    expect(
      host.calls.map((call) => [call.menu.join("/"), call.verb, Object.fromEntries(call.named)]),
    ).toEqual([
      ["ip/address", "add", { address: "10.0.0.1/24", interface: "ether1" }],
      ["interface", "print", {}],
    ]);
  });

  it("refuses an ambiguous prefix", () => {
    // `/ip address` has both `export` and `enable`.
    expect(() => parseScript("/ip address e", catalog)).toThrow("bad command name e (line 1 column 13)");
  });

  it("prefers an exact name to a longer one it begins", () => {
    expect(names(["interface"])).toContain("ethernet");
    const [command] = parseScript("/interface set", catalog).body.statements as CommandNode[];
    expect(command?.verb).toBe("set");
  });
});

describe(":onerror (RouterOS 7.13+)", () => {
  it("runs do= with the error text when in= fails, and is true then", async () => {
    expect(
      await run(
        ':local ok true\n:onerror e in={ :put a; :error "boom" } do={ :set ok false; :put ("caught " . $e) }\n:put $ok',
      ),
    ).toEqual(["a", "caught boom (line 2 column 25)", "false"]);
    expect(await run(":put [:onerror e in={ :error x } do={}]")).toEqual(["true"]);
  });

  it("leaves do= alone and is false when in= succeeds", async () => {
    expect(await run(":put [:onerror e in={ :put 1 } do={ :put 2 }]")).toEqual(["1", "false"]);
  });

  it("needs both blocks", async () => {
    expect(() => parseScript(":onerror e in={ :put 1 }")).toThrow(RouterOsError);
  });
});
