/**
 * The real-world corpus of the `routeros-corpus` bench: the manifest (what each file is and where it comes
 * from), the local copies of the files (third-party text, never committed), the split of a script into the
 * commands a console would run one by one, and the classification of each failure against RouterOS 7.24's tree.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkScript } from "../../src/routeros/catalog/check-script.js";
import { commandTreeFor } from "../../src/routeros/catalog/command-tree.js";
import { RouterOsError } from "../../src/routeros/errors.js";
import type { Statement } from "../../src/routeros/language/ast.js";
import { permissiveCatalog } from "../../src/routeros/language/default-catalog.js";
import type { CommandCatalog } from "../../src/routeros/language/host.js";
import { parseScript } from "../../src/routeros/language/parser.js";

export interface CorpusEntry {
  readonly repo: string;
  readonly commit: string;
  readonly path: string;
  readonly url: string;
  /** What it covers: `vlan`, `wireguard`, `ospf`, `functions`, ... */
  readonly kind: string;
  /** An `/export` of a router: it loads into a twin without defaults, as `plan` builds one. */
  readonly export: boolean;
  /** The catalog model the text was written for, as best its text tells. */
  readonly model: string;
  /** For a CHR: the virtual NICs the author's machine had, when more than the catalog's five. */
  readonly ethernetPorts?: number;
  /** For a CHR: whether its machine had a serial port (its export sets `serial0`). */
  readonly serialPort?: boolean;
  readonly notes: string;
  /** `holdout`: the second set, from repositories the simulator was not fixed against; absent: the tuned set. */
  readonly set?: "holdout";
  readonly bytes: number;
  readonly sha256: string;
}

export interface Manifest {
  readonly entries: readonly CorpusEntry[];
}

const here = dirname(fileURLToPath(import.meta.url));

export async function readManifest(): Promise<Manifest> {
  return JSON.parse(await readFile(join(here, "manifest.json"), "utf8")) as Manifest;
}

/** Where the local copies are: `ROUTERJOBS_CORPUS_DIR`, or `~/.cache/routerjobs/routeros-corpus`. */
export function corpusDir(): string {
  return process.env.ROUTERJOBS_CORPUS_DIR ?? join(homedir(), ".cache", "routerjobs", "routeros-corpus");
}

export type LocalCopy =
  | { readonly state: "present"; readonly text: string }
  | { readonly state: "missing" }
  | { readonly state: "changed"; readonly text: string; readonly sha256: string };

export async function localCopy(entry: CorpusEntry): Promise<LocalCopy> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(corpusDir(), entry.repo, entry.path));
  } catch {
    return { state: "missing" };
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const text = bytes.toString("utf8");
  return sha256 === entry.sha256 ? { state: "present", text } : { state: "changed", text, sha256 };
}

/** One command as a console runs it: its text (continued lines and blocks kept whole) and the menu it runs in. */
export interface Chunk {
  readonly line: number;
  readonly text: string;
  readonly menu: readonly string[];
}

/**
 * Splits a script into top-level commands: a line, with the lines it continues (`\` at the end, or an open
 * `{`, `[` or `(`), comments and blank lines left out. A line holding only a menu path changes the menu of
 * the lines after it, as in an export; it is no command itself.
 */
export function chunks(source: string): Chunk[] {
  const tree = commandTreeFor();
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const out: Chunk[] = [];
  let menu: string[] = [];
  let pending: string[] = [];
  let start = 0;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (pending.length === 0 && !inString) {
      const trimmed = line.trim();
      if (trimmed === "" || trimmed.startsWith("#")) continue;
      start = i + 1;
    }
    pending.push(line);
    let continued = false;
    for (let j = 0; j < line.length; j++) {
      const c = line[j];
      if (c === "\\") {
        if (j === line.length - 1) continued = true;
        j++;
      } else if (c === '"') inString = !inString;
      else if (!inString && (c === "{" || c === "[" || c === "(")) depth++;
      else if (!inString && (c === "}" || c === "]" || c === ")")) depth--;
    }
    if (continued || inString || depth > 0) continue;
    const text = pending.join("\n");
    pending = [];
    depth = 0;
    const path = menuPath(text.trim(), menu);
    if (path && tree.catalog.isMenu(path)) menu = path;
    else if (path && path.length === 0) menu = [];
    else out.push({ line: start, text, menu });
  }
  if (pending.length > 0) out.push({ line: start, text: pending.join("\n"), menu });
  return out;
}

/** The menu a line of menu words names (`/ip address`, `ip/address`, `/`), or undefined when it is more. */
function menuPath(text: string, current: readonly string[]): string[] | undefined {
  if (!/^\/?[a-z0-9][a-z0-9 /-]*$/i.test(text) && text !== "/") return undefined;
  const words = text.split(/[\s/]+/).filter((word) => word !== "");
  return text.startsWith("/") ? words : [...current, ...words];
}

/** The chunk as a script of its own: its menu line first. */
export function chunkScript(chunk: Chunk): string {
  return chunk.menu.length > 0 ? `/${chunk.menu.join(" ")}\n${chunk.text}` : chunk.text;
}

export type FailureClass =
  | "invalid on 7.24"
  | "script fault"
  | "needs state"
  | "simulator gap"
  | "language gap";

export const FAILURE_CLASSES: readonly FailureClass[] = [
  "invalid on 7.24",
  "script fault",
  "needs state",
  "simulator gap",
  "language gap",
];

/** Whether 7.24's tree rejects a name of the script (the menu, command or argument does not exist there). */
export function invalidOn724(source: string): string | undefined {
  const problem = checkScript(source);
  if (problem === undefined) return undefined;
  if (problem.name !== undefined) return problem.message;
  // Syntax the project's parser cannot read is not the tree's verdict: the language decides that below.
  return parsesPermissively(source) ? problem.message : undefined;
}

function parsesPermissively(source: string): boolean {
  return parses(source, permissiveCatalog);
}

/** Whether the project's parser reads `source` (a failure that ran was not the language's). */
function parses(source: string, catalog: CommandCatalog): boolean {
  try {
    parseScript(source, catalog);
    return true;
  } catch (error) {
    if (error instanceof RouterOsError) return false;
    throw error;
  }
}

/** Messages of values and items the author's router had and a fresh one has not. */
const NEEDS_STATE = [
  /^no such item/,
  /^input does not match any value of (interface|bridge|list|in-interface|out-interface|master-interface|address-pool|server|parent|pool|security-profile|profile|interfaces|src-address-list|dst-address-list|routing-table|instance|area|template|vrf|peer|disk|user|group|script|target-scope)/,
  /^failure: file .* not found/,
  /^failure: no such file/,
  /bad command name \$/,
  /^cannot convert .* to number/,
];
const SCRIPT_FAULT = [/^failure: already have/, /^division by zero/, /^interrupted/];

/** A value the author blanked before publishing (`172.16.X.X`, `dst-port=XXXX`): the file, not the router. */
function blankedValue(command: string, message: string): boolean {
  const name = /^invalid value for argument ([a-z0-9.-]+)/.exec(message)?.[1];
  if (name === undefined) return false;
  const value =
    new RegExp(`(?:^|\\s)${name.replace(/\./g, "\\.")}=\\\\?\\s*(\\S*)`).exec(
      command.replace(/\\\n\s*/g, ""),
    )?.[1] ?? "";
  return /(^|[.!])X|XX/.test(value);
}

/**
 * The class of one failure: where the script is not RouterOS 7.24, or where the simulated router falls short.
 * `source` is what ran (its syntax decides a language gap), `command` the command that failed, checked against
 * the tree (the same text when a command ran on its own).
 */
/**
 * `set name=value` naming no item, in a menu that 7.24 has as a list (`/mpls ldp set lsr-id=...`, a settings
 * menu in v6): 7.24 fails it as the simulated router does, asking for the item.
 */
function setWithoutItem(command: string, message: string): boolean {
  if (!message.startsWith("missing value(s) of argument(s) numbers")) return false;
  const tree = commandTreeFor().catalog;
  let statements: readonly Statement[];
  try {
    statements = parseScript(command, tree).body.statements;
  } catch {
    return false;
  }
  return statements.some(
    (statement) =>
      statement.kind === "command" &&
      statement.verb === "set" &&
      statement.positional.length === 0 &&
      tree.hasCommand(statement.menu, "add"),
  );
}

export function classify(
  source: string,
  message: string,
  command: string = source,
  catalog: CommandCatalog = permissiveCatalog,
): FailureClass {
  if (invalidOn724(command) !== undefined || setWithoutItem(command, message)) return "invalid on 7.24";
  // A name the simulated router does not know stops its parse; the language reads it (the tree has it).
  if (!parses(source, catalog))
    return parses(source, commandTreeFor().catalog) || parsesPermissively(source)
      ? "simulator gap"
      : "language gap";
  if (NEEDS_STATE.some((pattern) => pattern.test(message))) return "needs state";
  if (SCRIPT_FAULT.some((pattern) => pattern.test(message)) || blankedValue(command, message))
    return "script fault";
  if (
    /:error\b/.test(command) &&
    !/^(syntax error|expected end of command|bad command name|no such command)/.test(message)
  )
    return "script fault";
  return "simulator gap";
}

/** A message with its script-specific parts (quoted values, numbers, line and column) made generic. */
export function messageShape(message: string): string {
  return message
    .replace(/\(line \d+ column \d+\)/g, "")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b\d+\b/g, "N")
    .trim();
}
