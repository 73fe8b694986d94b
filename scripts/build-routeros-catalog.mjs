#!/usr/bin/env node
/**
 * Builds the project's compact RouterOS command catalog (`src/routeros/catalog/routeros-7.24.ts`) from
 * RouterOS 7.24's own `/console/inspect` tree, kept beside the project in `../shared/routeros/` (source: the
 * public-domain schema collection tikoci/restraml, docs/7.24, generated from a RouterOS 7.24 CHR).
 *
 * What it keeps: every menu path, each menu's commands, each command's argument names, and a short code for
 * the kind of value an argument takes where RouterOS describes it (see `kindOf`). The base tree is taken
 * whole; from the tree with extra packages `interface wireless` (the package most devices with a radio run),
 * so the console knows those menus on a router without the radio, and the menus of the packages real
 * configurations use most (`container` with `interface veth`, `caps-man`).
 *
 * Compact form: one JSON text, stored as a string constant so that a bundler keeps it as data and the
 * catalog parses it on first use (`src/routeros/catalog/index.ts`). Per menu: `a`, its argument table
 * (`name` or `name:kind`, space-separated, union over its commands), and `c`, its commands, each either
 * `"="` (exactly the common argument set of that verb, listed once in `common`) or its argument names.
 *
 * Usage: node scripts/build-routeros-catalog.mjs [--check]   (--check: fail when the file is out of date)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const shared = join(root, "..", "shared", "routeros");
const target = join(root, "src", "routeros", "catalog", "routeros-7.24.ts");
const extraSubtrees = [["interface", "wireless"], ["interface", "veth"], ["container"], ["caps-man"]];
/** Arguments `add` takes that `set` does not: where a new item goes and what it copies. */
const placement = new Set(["copy-from", "place-before"]);

/** Descriptions RouterOS gives, in the order they are tried, each with the kind code it becomes. */
const kindRules = [
  [/^(?:string value|script)$/, () => "s"],
  [/^string value(?:, min length (\d+))?(?:, max length (\d+))?$/, (m) => `s:${m[1] ?? 0}..${m[2] ?? ""}`],
  [/^hexadecimal string value/, () => "hex"],
  [/\(IP address\)$/, () => "ip"],
  [/\(IP address range\)$/, () => "ipr"],
  [/\(IP prefix\)$/, () => "ipp"],
  [/\(IPv6 prefix\)$/, () => "ip6p"],
  [/\(MAC address\)$/, () => "mac"],
  [/^time interval$/, () => "t"],
  [/^(\S*)\.\.(\S*)\s+\(time interval\)$/, (m) => `t:${m[1]}..${m[2]}`],
  [/^(\d+)\.\.(\d+)$/, (m) => `i:${m[1]}..${m[2]}`],
  [/^([\w.-]+(?:\|[\w.-]+)+)\[,\w+\*\]$/, (m) => `l:${m[1]}`],
  [/^([\w.-]+(?:\|[\w.-]+)+)$/, (m) => `e:${m[1]}`],
];

/** RouterOS's description of a value -> a short kind code (empty when it gives none worth checking). */
export function kindOf(desc) {
  for (const [pattern, code] of kindRules) {
    const match = desc ? pattern.exec(desc) : null;
    if (match) return code(match);
  }
  return "";
}

function walk(node, path, out) {
  for (const [name, child] of Object.entries(node)) {
    if (typeof child !== "object" || child === null) continue;
    const type = child._type;
    if (type === "dir" || type === "path") {
      out.menus.set([...path, name].join(" "), new Map());
      walk(child, [...path, name], out);
    } else if (type === "cmd") {
      const args = Object.entries(child)
        .filter(([, arg]) => typeof arg === "object" && arg?._type === "arg")
        .map(([argName, arg]) => [argName, kindOf(arg.desc)]);
      const menu = out.menus.get(path.join(" "));
      if (menu) menu.set(name, args);
    }
  }
}

/** One command's argument list, written against the sets a reader already has (see the header). */
function encode(verb, names, commonNames, derived) {
  if (names === commonNames) return "=";
  if (verb !== "add" && names === derived) return "~";
  const common = new Set(commonNames?.split(" ") ?? []);
  const list = names.split(" ");
  if (common.size > 0 && [...common].every((name) => list.includes(name)))
    return `=${list.filter((name) => !common.has(name)).join(" ")}`;
  return names;
}

function subtree(tree, path) {
  return path.reduce((node, word) => node?.[word], tree);
}

export function buildCatalog(base, extra) {
  const out = { menus: new Map([["", new Map()]]) };
  walk(base, [], out);
  for (const path of extraSubtrees) {
    const node = subtree(extra, path);
    if (!node) throw new Error(`extra tree has no ${path.join(" ")}`);
    out.menus.set(path.join(" "), new Map());
    walk(node, path, out);
  }
  // The most frequent argument list of each verb becomes its common set, written once.
  const counts = new Map();
  for (const commands of out.menus.values())
    for (const [verb, args] of commands) {
      const key = `${verb}\n${args.map(([n]) => n).join(" ")}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  const common = {};
  for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1])) {
    const [verb, names] = key.split("\n");
    if (count >= 3 && common[verb] === undefined && names !== "") common[verb] = names;
  }
  const menus = {};
  for (const [path, commands] of [...out.menus].sort(([a], [b]) => a.localeCompare(b))) {
    const kinds = new Map();
    for (const args of commands.values())
      for (const [name, kind] of args) if (kind && !kinds.has(name)) kinds.set(name, kind);
    const added = (commands.get("add") ?? []).map(([n]) => n).filter((n) => !placement.has(n));
    const derived = [...added, "numbers"].sort().join(" ");
    const c = {};
    for (const [verb, args] of [...commands].sort(([a], [b]) => a.localeCompare(b))) {
      const names = args.map(([n]) => n).join(" ");
      c[verb] = encode(verb, names, common[verb], added.length > 0 ? derived : undefined);
    }
    const a = [...kinds]
      .sort(([x], [y]) => x.localeCompare(y))
      .map(([name, kind]) => `${name}:${kind}`)
      .join(" ");
    menus[path] = a === "" ? { c } : { a, c };
  }
  return {
    source:
      "RouterOS 7.24 /console/inspect (tikoci/restraml docs/7.24); interface wireless, interface veth, container and caps-man from the extra tree",
    common,
    menus,
  };
}

function render(catalog) {
  const json = JSON.stringify(catalog);
  // A template literal needs no escaping of the JSON's quotes; names and kind codes hold no backtick or `${`.
  if (/[`\\]|\$\{/.test(json)) throw new Error("catalog text holds a backtick, backslash or ${");
  return [
    "// Generated by scripts/build-routeros-catalog.mjs from RouterOS 7.24's /console/inspect tree",
    "// (tikoci/restraml docs/7.24). Do not edit: run the script. Parsed on first use by ./index.ts.",
    // Typed `string`: inferred, the constant's type is the literal text, and tsc writes all of it into the
    // published .d.ts a second time (the package's largest file, read by no one's compiler usefully).
    `export const catalogJson: string = \`${json}\`;`,
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const read = (file) => JSON.parse(readFileSync(join(shared, file), "utf8"));
  const text = render(buildCatalog(read("inspect-7.24.json"), read("inspect-7.24-extra.json")));
  if (process.argv.includes("--check")) {
    const current = readFileSync(target, "utf8");
    if (current !== text) {
      console.error(`${target} is out of date: run node scripts/build-routeros-catalog.mjs`);
      process.exit(1);
    }
  } else writeFileSync(target, text);
  console.log(`${target}: ${Buffer.byteLength(text)} bytes`);
}
