import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkScript } from "../../../src/routeros/catalog/check-script.js";
import { commandTreeFor, UNCHECKED_MENUS } from "../../../src/routeros/catalog/command-tree.js";
import { routerOsCatalog } from "../../../src/routeros/catalog/index.js";
import { didYouMean, editDistance, suggestNames } from "../../../src/routeros/language/suggest.js";

const CORPUS = join(import.meta.dirname, "..", "simulator", "corpus");
const tree = commandTreeFor("7.24");

describe("checkScript: unknown names, with the nearest valid ones", () => {
  it.each([
    [
      "a misspelled menu",
      "/ip adress add address=10.0.0.1/24 interface=ether1",
      "line 1 column 5: `adress` is no menu or command at /ip in RouterOS 7.24; did you mean `address`?",
    ],
    [
      "a misspelled top-level menu",
      "/ipp address print",
      "line 1 column 2: `ipp` is no menu or command at / in RouterOS 7.24; did you mean `ip` or `ppp`?",
    ],
    [
      "a misspelled command",
      "/ip address asd address=10.0.0.1/24",
      "line 1 column 13: `asd` is no menu or command at /ip address in RouterOS 7.24; did you mean `add`?",
    ],
    [
      "an ambiguous abbreviation",
      "/ip a print",
      "line 1 column 5: `a` is no menu or command at /ip in RouterOS 7.24; did you mean `address` or `arp`?",
    ],
    [
      "a misspelled argument on the second line",
      "/ip firewall filter add chain=input action=accept\n/ip firewall filter add chain=forward in-interface-lst=WAN action=drop",
      "line 2 column 39: `in-interface-lst` is no argument of /ip firewall filter add in RouterOS 7.24; did you mean `in-interface-list`?",
    ],
    [
      "two swapped letters in an argument inside a menu block",
      "/ip firewall filter {\n  add chain=input actoin=drop\n}",
      "line 2 column 19: `actoin` is no argument of /ip firewall filter add in RouterOS 7.24; did you mean `action`?",
    ],
    [
      "an argument after a `[ find ... ]` selection",
      "/interface ethernet set [ find default-name=ether1 ] nmae=wan",
      "line 1 column 54: `nmae` is no argument of /interface ethernet set in RouterOS 7.24; did you mean `name`?",
    ],
    [
      "an argument inside a function body",
      ":local f do={ /ip address add address=$1 interfce=ether1 }",
      "line 1 column 42: `interfce` is no argument of /ip address add in RouterOS 7.24; did you mean `interface`?",
    ],
    [
      "an argument after an export line wrap (placed where it is written)",
      "/interface bridge port add bridge=bridge interface=ether2 \\\n    pvdi=10",
      "line 2 column 5: `pvdi` is no argument of /interface bridge port add in RouterOS 7.24; did you mean `pvid`?",
    ],
    [
      "a misspelled global command",
      ':lcoal x 1\n:put "done"',
      "line 1 column 2: `lcoal` is no global command in RouterOS 7.24; did you mean `local`?",
    ],
    [
      "an unknown argument nothing is near",
      "/ip address add zzzzzz=1",
      "line 1 column 17: `zzzzzz` is no argument of /ip address add in RouterOS 7.24",
    ],
  ])("explains %s", (_case, source, message) => {
    // GIVEN a script with one unknown name
    // WHEN it is checked against the 7.24 tree
    const problem = checkScript(source, { tree });
    // THEN the message names the place, the name and the nearest valid names
    expect(problem?.message).toBe(message);
  });

  it("keeps RouterOS's own text and the suggestions as fields", () => {
    const problem = checkScript("/ip firewall nat add chain=srcnat out-interface-lst=WAN", { tree });
    expect(problem).toMatchObject({
      routerText: "expected end of command (line 1 column 35)",
      line: 1,
      column: 35,
      name: "out-interface-lst",
      suggestions: ["out-interface-list"],
    });
  });

  it("reports other mistakes as RouterOS does, without guessing a name", () => {
    // GIVEN syntax errors, one right after a command that takes no `where` (a lookup that found nothing)
    expect(checkScript("/ip dns set servers=1.1.1.1 }", { tree })?.message).toBe(
      "does not parse as RouterOS: expected end of command (line 1 column 29)",
    );
    expect(checkScript(':put "open', { tree })).toMatchObject({ suggestions: [] });
    expect(checkScript(":put $undeclared", { tree })?.message).toBe(
      "does not parse as RouterOS: syntax error (line 1 column 7)",
    );
  });

  it("checks the syntax only when checkCommands is false", () => {
    expect(checkScript("/container add remote-image=nginx:latest", { tree, checkCommands: false })).toBe(
      undefined,
    );
    expect(checkScript("/ip adress print", { tree, checkCommands: false })).toBe(undefined);
    expect(checkScript("/ip dns set }", { tree, checkCommands: false })?.message).toMatch(
      /^does not parse as RouterOS: expected end of command/,
    );
  });
});

describe("checkScript: no false alarms", () => {
  const files = readdirSync(CORPUS).filter((name) => name.endsWith(".rsc"));

  it("finds the real-world corpus", () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files)("accepts %s", (file) => {
    // GIVEN a real-world configuration (exports with line wraps, defconf blocks, functions, `$var`, `[find]`)
    const source = readFileSync(join(CORPUS, file), "utf8");
    // THEN it passes the 7.24 tree
    expect(checkScript(source, { tree })).toBe(undefined);
  });

  it("accepts what real routers write and the tree (read from a CHR) lacks", () => {
    for (const source of [
      "/ip firewall filter add chain=forward action=fasttrack-connection hw-offload=yes",
      "/ip route add gateway=192.0.2.1 suppress-hw-offload=no",
      "/ip firewall nat add chain=dstnat connection-state=new action=accept",
      "/system routerboard settings set auto-upgrade=yes",
      "/interface ethernet switch port set ether2 vlan-mode=secure",
      "/interface bridge port set [ find dynamic=no interface=ether2 ] pvid=10",
      "/ip address add addr=10.0.0.1/24 int=ether1",
    ]) {
      expect(checkScript(source, { tree }), source).toBe(undefined);
    }
  });
});

/** Names as the console reads them as one word: the generator uses only those. */
const PLAIN = /^[a-z0-9][a-z0-9-]*$/;

interface Command {
  readonly path: readonly string[];
  readonly verb: string;
  readonly args: readonly string[];
}

/** Every command of the tree a script can write as `/menu verb name=value ...`. */
function writableCommands(): Command[] {
  const ros = routerOsCatalog();
  const unchecked = (path: readonly string[]) =>
    UNCHECKED_MENUS.some((prefix) => prefix.every((word, i) => path[i] === word));
  return ros.menuPaths.flatMap((key) => {
    const path = key === "" ? [] : key.split(" ");
    if (path.length === 0 || unchecked(path) || !path.every((word) => PLAIN.test(word))) return [];
    return (ros.commandsOf(path) ?? [])
      .filter((verb) => PLAIN.test(verb) && !ros.isMenu([...path, verb]))
      .map((verb) => ({
        path,
        verb,
        args: (tree.catalog.argumentsOf?.(path, verb) ?? []).filter(
          (arg) => PLAIN.test(arg) && arg !== "where",
        ),
      }));
  });
}

const commandsOfTree = writableCommands();
const VALUES = ["v1", "yes", "10", '"a b"', "$x", '[:len "ab"]', '($x . "-1")'];

const line = fc.constantFrom(...commandsOfTree).chain((command) =>
  fc.record({
    command: fc.constant(command),
    args: fc.subarray([...command.args], { maxLength: Math.min(4, command.args.length) }),
    values: fc.array(fc.constantFrom(...VALUES), { minLength: 4, maxLength: 4 }),
  }),
);

const write = (entry: { command: Command; args: string[]; values: string[] }, args = entry.args) =>
  [
    `/${entry.command.path.join(" ")}`,
    entry.command.verb,
    ...args.map((arg, i) => `${arg}=${entry.values[i]}`),
  ].join(" ");

/** One edit of a name: a letter replaced, inserted or dropped, or two neighbours swapped. */
const misspell = (word: string, position: number, letter: string, kind: number): string => {
  const at = position % word.length;
  switch (kind) {
    case 0:
      return word.slice(0, at) + letter + word.slice(at + 1);
    case 1:
      return word.slice(0, at) + letter + word.slice(at);
    case 2:
      return word.slice(0, at) + word.slice(at + 1);
    default:
      return word.slice(0, at) + (word[at + 1] ?? "") + word[at] + word.slice(at + 2);
  }
};

describe("checkScript: properties over the 7.24 tree", () => {
  it("accepts any script built from the tree's own names", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (lines) => {
        const source = [":local x 1", ...lines.map((entry) => write(entry))].join("\n");
        expect(checkScript(source, { tree })?.message).toBe(undefined);
      }),
    );
  });

  it("refuses a single misspelled menu, command or argument, naming the word and its line", () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz"),
        fc.nat(3),
        (lines, which, target, position, letter, kind) => {
          const index = which % lines.length;
          const entry = lines[index] as (typeof lines)[number];
          const { path, verb } = entry.command;
          // The words of the line: menu words, the verb, then the argument names.
          const words = [...path, verb, ...entry.args];
          const at = target % words.length;
          const original = words[at] as string;
          const wrong = misspell(original, position, letter, kind);
          // Valid at that place: the names under the menu so far, or the command's arguments.
          const valid =
            at < path.length + 1
              ? (tree.catalog.namesAt?.(path.slice(0, at)) ?? [])
              : (tree.catalog.argumentsOf?.(path, verb) ?? []);
          const unchecked = UNCHECKED_MENUS.some((prefix) => prefix[at] === wrong);
          fc.pre(PLAIN.test(wrong) && !unchecked && !valid.some((name) => name.startsWith(wrong)));

          const written =
            at < path.length
              ? write({
                  ...entry,
                  command: { ...entry.command, path: path.map((w, i) => (i === at ? wrong : w)) },
                })
              : at === path.length
                ? write({ ...entry, command: { ...entry.command, verb: wrong } })
                : write(
                    entry,
                    entry.args.map((arg, i) => (i === at - path.length - 1 ? wrong : arg)),
                  );
          const source = [
            ":local x 1",
            ...lines.map((other, i) => (i === index ? written : write(other))),
          ].join("\n");
          const problem = checkScript(source, { tree });
          expect(problem?.name).toBe(wrong);
          expect(problem?.line).toBe(index + 2);
          expect(problem?.message).toContain(`\`${wrong}\``);
        },
      ),
    );
  });
});

describe("suggestions", () => {
  it("measures edits, a swap of neighbours counting one", () => {
    expect(editDistance("adress", "address")).toBe(1);
    expect(editDistance("actoin", "action")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });

  it("offers the nearest names first, and all names an ambiguous word abbreviates", () => {
    expect(
      suggestNames("in-interface-lst", ["in-interface", "in-interface-list", "out-interface-list"]),
    ).toEqual(["in-interface-list"]);
    expect(suggestNames("adres", ["address", "arp", "adres-x", "adrs"])).toEqual([
      "adres-x",
      "adrs",
      "address",
    ]);
    expect(suggestNames("a", ["arp", "address", "route"])).toEqual(["address", "arp"]);
    expect(suggestNames("qqq", ["address"])).toEqual([]);
  });

  it("words them as a question", () => {
    expect(didYouMean([])).toBe("");
    expect(didYouMean(["a"])).toBe("did you mean `a`?");
    expect(didYouMean(["a", "b", "c"])).toBe("did you mean `a`, `b` or `c`?");
  });
});

describe("commandTreeFor", () => {
  it("gives 7.24 and its patch releases the 7.24 tree, and anything else the 7.24 tree with a note", () => {
    expect(commandTreeFor("7.24")).toMatchObject({ version: "7.24" });
    expect(commandTreeFor("7.24").fallbackFrom).toBe(undefined);
    expect(commandTreeFor("7.24.2").fallbackFrom).toBe(undefined);
    expect(commandTreeFor("6.49.10")).toMatchObject({ version: "7.24", fallbackFrom: "6.49.10" });
    expect(commandTreeFor("7.25beta1")).toMatchObject({ version: "7.24", fallbackFrom: "7.25beta1" });
    expect(commandTreeFor("7.24rc2")).toMatchObject({ version: "7.24", fallbackFrom: "7.24rc2" });
  });
});
