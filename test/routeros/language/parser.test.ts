import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RouterOsError } from "../../../src/routeros/errors.js";
import type { CommandNode, Expr, Statement } from "../../../src/routeros/language/ast.js";
import { parseScript } from "../../../src/routeros/language/parser.js";
import { testCatalog } from "../recording-host.js";

const statements = (source: string, menu?: string[]) =>
  parseScript(source, testCatalog, menu ? { menu } : {}).body.statements;
const commands = (source: string) => statements(source) as CommandNode[];
const where = (source: string) => commands(source)[0]?.where;
const errorOf = (source: string, catalog = testCatalog): string => {
  try {
    parseScript(source, catalog);
  } catch (error) {
    if (error instanceof RouterOsError) return error.message;
    throw error;
  }
  throw new Error(`parsed without error: ${source}`);
};
/** The literal text of an argument, for short assertions. */
const literal = (expr: Expr | undefined) => (expr?.type === "literal" ? expr.value : expr?.type);

describe("menu resolution", () => {
  it("resolves absolute paths written with spaces or slashes", () => {
    for (const source of ["/ip address add address=1.1.1.1/32", "/ip/address/add address=1.1.1.1/32"]) {
      const [command] = commands(source);
      expect(command).toMatchObject({
        kind: "command",
        menu: ["ip", "address"],
        verb: "add",
        line: 1,
        column: 1,
      });
      expect(command?.named.map((arg) => [arg.name, literal(arg.value)])).toEqual([
        ["address", "1.1.1.1/32"],
      ]);
    }
  });

  it("changes the current menu with a line holding only a menu path, as export output does", () => {
    const list = commands(
      "/ip address\nadd address=10.0.0.1/24 interface=ether1\n/interface ethernet\nset ether1 mtu=1500",
    );
    expect(list.map((c) => `${c.menu.join("/")} ${c.verb}`)).toEqual([
      "ip/address add",
      "interface/ethernet set",
    ]);
  });

  it("walks relative words and .. from the current menu", () => {
    expect(commands("/ip\naddress print\n.. interface print")).toMatchObject([
      { menu: ["ip", "address"], verb: "print" },
      { menu: ["interface"], verb: "print" },
    ]);
    expect(commands("/ip address\n.. route print")[0]?.menu).toEqual(["ip", "route"]);
    expect(statements("print", ["interface"])).toMatchObject([{ menu: ["interface"], verb: "print" }]);
  });

  it("keeps a menu change inside its { } block", () => {
    const [block, after] = statements("/interface\n{ /ip address; add address=1.1.1.1/32 }\nprint");
    expect(block?.kind === "block" && block.block.statements[0]).toMatchObject({ menu: ["ip", "address"] });
    expect(after).toMatchObject({ menu: ["interface"], verb: "print" });
  });

  it("runs [find] inside a command in that command's menu", () => {
    const [command] = commands("/ip address remove [find interface=ether1]");
    const sub = command?.positional[0];
    expect(sub?.type === "substitution" && sub.block.statements[0]).toMatchObject({
      menu: ["ip", "address"],
      verb: "find",
    });
  });

  it("names the unknown word and its column with a catalog", () => {
    expect(errorOf("/ip adress add")).toBe("bad command name adress (line 1 column 5)");
    expect(errorOf("/ip/address/ad x=1")).toBe("bad command name ad (line 1 column 13)");
    expect(errorOf(":put 1\n/interface foo")).toBe("bad command name foo (line 2 column 12)");
  });

  it("accepts any lower-case menu without a catalog, until a common verb", () => {
    expect(parseScript("/ip adress print").body.statements[0]).toMatchObject({
      menu: ["ip", "adress"],
      verb: "print",
    });
    expect(() => parseScript("/ip Address print")).toThrow("bad command name Address (line 1 column 5)");
  });
});

describe("export output", () => {
  it("reads a RouterOS export with comments, continued lines and [ find ] selectors", () => {
    const source = [
      "# 2024-05-01 12:00:00 by RouterOS 7.14.3",
      "# software id = ABCD-1234",
      "#",
      "/interface ethernet",
      "set [ find default-name=ether1 ] comment=WAN name=wan",
      "/ip address",
      "add address=192.168.88.1/24 comment=defconf interface=bridge \\",
      "    network=192.168.88.0",
      "/ip firewall filter",
      'add action=accept chain=input comment="defconf: accept established,related,untracked" \\',
      "    connection-state=established,related,untracked",
    ].join("\n");
    const list = parseScript(source).body.statements as CommandNode[];
    expect(list.map((c) => [c.menu.join("/"), c.verb, c.line])).toEqual([
      ["interface/ethernet", "set", 5],
      ["ip/address", "add", 7],
      ["ip/firewall/filter", "add", 10],
    ]);
    expect(list[1]?.named.map((a) => [a.name, literal(a.value)])).toEqual([
      ["address", "192.168.88.1/24"],
      ["comment", "defconf"],
      ["interface", "bridge"],
      ["network", "192.168.88.0"],
    ]);
    expect(literal(list[2]?.named[2]?.value)).toBe("defconf: accept established,related,untracked");
  });
});

describe("arguments", () => {
  it("separates named arguments, flags and unnamed arguments", () => {
    const [set, print, remove] = commands(
      "/interface set ether1 name=wan\n/interface print detail\n/ip address remove 0",
    );
    expect(set?.positional.map(literal)).toEqual(["ether1"]);
    expect(set?.named.map((a) => [a.name, literal(a.value)])).toEqual([["name", "wan"]]);
    expect(print?.named.map((a) => [a.name, literal(a.value)])).toEqual([["detail", true]]);
    expect(remove?.positional.map(literal)).toEqual(["0"]);
  });

  it("reads an empty value, a value holding = and a quoted flag word", () => {
    const [command] = commands('/ip address add comment= x=a=b "detail"');
    expect(command?.named.map((a) => [a.name, literal(a.value)])).toEqual([
      ["comment", ""],
      ["x", "concat"],
    ]);
    expect(command?.positional.map(literal)).toEqual(["detail"]);
  });

  it("joins adjacent pieces into one argument", () => {
    const [, command] = commands(':local x 1\n/interface set name=wan$x"-b"');
    expect(command?.named[0]?.value).toMatchObject({
      type: "concat",
      parts: [{ value: "wan" }, { name: "x" }, { value: "-b" }],
    });
  });

  it("keeps host arguments as text but types global command values", () => {
    const [local, command] = statements(":local n 3\n/interface set mtu=3");
    expect(local).toMatchObject({ kind: "declare", value: { value: 3 } });
    expect((command as CommandNode).named[0]?.value).toMatchObject({ value: "3" });
  });
});

describe("arguments a catalog knows", () => {
  /** The test catalog, where every command takes `address`, `interface` and `where`, and print takes `detail`. */
  const strict = {
    ...testCatalog,
    hasArgument: (_path: readonly string[], verb: string, name: string) =>
      ["address", "interface", "where"].includes(name) || (verb === "print" && name === "detail"),
  };

  it("rejects an unknown name at its own column, before its value is read", () => {
    // GIVEN a typo in the second line, whose value would be a syntax error of its own
    const source = "/system identity set address=a\n/ip address add adress=$nope interface=ether1";
    // THEN the parser stops at the name, as the console does
    expect(errorOf(source, strict)).toBe("expected end of command (line 2 column 17)");
    expect(errorOf("/ip address print detail\n:put [/ip address find x=1]", strict)).toBe(
      "expected end of command (line 2 column 24)",
    );
  });

  it("reads a flag word the command does not take as an unnamed argument", () => {
    const [print, remove] = parseScript("/ip address print detail\n/ip address remove detail", strict).body
      .statements as CommandNode[];
    expect(print?.named.map((a) => [a.name, literal(a.value)])).toEqual([["detail", true]]);
    expect(remove?.named).toEqual([]);
    expect(remove?.positional.map(literal)).toEqual(["detail"]);
  });

  it("reads `where` as a condition only where the command takes it", () => {
    const none = { ...strict, hasArgument: () => false };
    const [command] = parseScript("/ip address remove where", none).body.statements as CommandNode[];
    expect(command?.where).toBeUndefined();
    expect(command?.positional.map(literal)).toEqual(["where"]);
  });
});

describe("global commands and blocks", () => {
  it("parses :if, :foreach and :do with their blocks", () => {
    const [, ifs, loop, guarded] = statements(
      ':local a 1\n:if ($a = 1) do={ :put yes } else={ :put no }\n:foreach i in=[/interface find] do={ :put $i }\n:do { :error "x" } on-error={ :log warning "failed" }',
    );
    expect(ifs).toMatchObject({
      kind: "if",
      condition: { type: "binary", operator: "=" },
      otherwise: { statements: [{ kind: "put" }] },
    });
    expect(loop).toMatchObject({
      kind: "foreach",
      name: "i",
      items: { type: "substitution" },
      body: { statements: [{ kind: "put" }] },
    });
    expect(guarded).toMatchObject({
      kind: "do",
      body: { statements: [{ kind: "error" }] },
      onError: { statements: [{ kind: "log", level: "warning" }] },
    });
  });

  it("parses :local/:global with and without value, :set, :delay and value functions", () => {
    expect(statements(':global g\n:local s "x"\n:set g 2\n:delay 500ms\n:put [:len $s]')).toMatchObject([
      { kind: "declare", scope: "global", name: "g" },
      { kind: "declare", scope: "local", name: "s", value: { value: "x" } },
      { kind: "set", name: "g", value: { value: 2 } },
      { kind: "delay", duration: { value: "500ms" } },
      {
        kind: "put",
        value: { type: "substitution", block: { statements: [{ kind: "function", name: "len" }] } },
      },
    ]);
  });

  it("declares a loop's variable in its body only, not in the blocks after the loop", () => {
    expect(() => statements(":for i from=1 to=3 do={ :put $i; { :put $i } }")).not.toThrow();
    expect(errorOf(":for i from=1 to=3 do={ }\n{ :put $i }")).toBe("syntax error (line 2 column 9)");
    expect(errorOf(":foreach i in={1;2} do={ }\n:if (true) do={ :put $i }")).toBe(
      "syntax error (line 2 column 23)",
    );
  });

  it("sees a variable only in its block and after its declaration", () => {
    expect(() => statements("{ :local a 1; { :put $a } }")).not.toThrow();
    expect(errorOf("{ :local a 1 }\n:put $a")).toBe("syntax error (line 2 column 7)");
    expect(errorOf(":put $a; :local a 1")).toBe("syntax error (line 1 column 7)");
    expect(errorOf(":foreach i in=[/interface find] do={ }\n:put $i")).toBe("syntax error (line 2 column 7)");
    expect(errorOf(":set nothere 1")).toBe("syntax error (line 1 column 6)");
    expect(statements(':local "my var" 1\n:put $"my var"')).toMatchObject([
      { kind: "declare", name: "my var" },
      { kind: "put", value: { type: "variable", name: "my var" } },
    ]);
    expect(errorOf(":local [:len x] 2")).toBe("syntax error (line 1 column 8)");
  });

  it("ignores comments and joins continued lines", () => {
    expect(statements("# header\n/ip address \\\n  add address=1.1.1.1/32 # not a comment")).toMatchObject([
      { kind: "command", verb: "add", line: 2, column: 1 },
    ]);
  });
});

describe("where", () => {
  it("turns tested and left-compared words into properties", () => {
    expect(where('/ip address print where interface=ether1 and !disabled or comment~"^x"')).toMatchObject({
      operator: "or",
      left: {
        operator: "and",
        left: {
          operator: "=",
          left: { type: "property", name: "interface" },
          right: { type: "literal", value: "ether1" },
        },
        right: { type: "not", operand: { type: "property", name: "disabled" } },
      },
      right: { operator: "~", left: { type: "property", name: "comment" } },
    });
  });

  it("reads [find where ...] and stops the condition at the closing bracket", () => {
    const [command] = commands("/ip address remove [find where address in 10.0.0.0/8] ");
    const sub = command?.positional[0];
    const find = sub?.type === "substitution" ? (sub.block.statements[0] as CommandNode) : undefined;
    expect(find?.where).toMatchObject({
      operator: "in",
      left: { name: "address" },
      right: { value: "10.0.0.0/8" },
    });
  });
});

describe("syntax errors", () => {
  const cases: [string, string][] = [
    ["unterminated quote", '/ip address add comment="abc', "expected end of command (line 1 column 25)"],
    ["stray ]", ":put 1\n:put 2 ]", "expected end of command (line 2 column 8)"],
    ["stray }", "}", "expected end of command (line 1 column 1)"],
    ["unclosed [", ":put [/interface find", "syntax error (line 1 column 22)"],
    ["unclosed (", ":put (1 + ", "syntax error (line 1 column 11)"],
    ["missing operand", ":if ( = 1) do={}", "syntax error (line 1 column 7)"],
    ["missing do block", ":if (true)", "syntax error (line 1 column 1)"],
    ["extra argument", ":put 1 2", "expected end of command (line 1 column 8)"],
    ["unknown global", ":frobnicate 1", "bad command name frobnicate (line 1 column 2)"],
    ["unknown log level", ":log loud x", "bad command name loud (line 1 column 6)"],
    [
      "block as a host command's unnamed argument",
      "/ip address print { :put 1 }",
      "syntax error (line 1 column 19)",
    ],
    ["bad where operator", "/interface print where name=", "syntax error (line 1 column 29)"],
  ].map(([, source, message]) => [source as string, message as string]);
  it.each(cases)("%s -> %s", (source, message) => {
    expect(errorOf(source)).toBe(message);
  });

  it("throws nothing but positioned RouterOsError on arbitrary input", () => {
    const alphabet = fc.constantFrom(
      ...'ab $"\\[](){};=#:/\n!~<>.-'.split(""),
      "add",
      "ip",
      ":put",
      ":local",
      "where",
      ":if",
      "do=",
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 30 }), (pieces) => {
        try {
          parseScript(pieces.join(""), testCatalog);
        } catch (error) {
          if (!(error instanceof RouterOsError) || error.line === undefined) throw error;
        }
      }),
      { numRuns: 1500 },
    );
  });
});

/** Keeps the `Statement` import honest: every statement kind the parser builds is listed here. */
const KINDS: Statement["kind"][] = [
  "command",
  "block",
  "declare",
  "set",
  "put",
  "log",
  "delay",
  "if",
  "foreach",
  "do",
  "error",
  "function",
];
it("builds every statement kind", () => {
  const source =
    ":local a 1; :set a 2; :put $a; :log info x; :delay 1s; :if (true) do={}; :foreach i in=1 do={}; :do {}; { :error x }; :len a; /interface print";
  const seen = new Set<string>();
  const visit = (list: readonly Statement[]) => {
    for (const statement of list) {
      seen.add(statement.kind);
      if (statement.kind === "block") visit(statement.block.statements);
    }
  };
  visit(statements(source));
  expect([...seen].sort()).toEqual([...KINDS].sort());
});
