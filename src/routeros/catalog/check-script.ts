/**
 * Checks a script against a RouterOS command tree before anything runs (the constructs do it at synth time),
 * and explains a failure better than the router would: RouterOS says `expected end of command (line 2 column
 * 26)`, this says which name is wrong, where, and which valid names are nearest.
 *
 * The parser does the checking (`parseScript` with the tree's catalog), so variables, functions, `[...]` and
 * `$var` in values are read exactly as the simulated router reads them. What the parser asked the catalog last
 * before it failed tells which menu or command the unknown name was looked up in.
 */

import { RouterOsError } from "../errors.js";
import { permissiveCatalog } from "../language/default-catalog.js";
import type { CommandCatalog } from "../language/host.js";
import { parseScript } from "../language/parser.js";
import { didYouMean, suggestNames } from "../language/suggest.js";
import { type CommandTree, commandTreeFor } from "./command-tree.js";

export interface ScriptProblem {
  /** RouterOS's own text and position: `expected end of command (line 2 column 26)`. */
  readonly routerText: string;
  readonly line?: number;
  readonly column?: number;
  /** The unknown menu, command or argument name as written, when that is the failure. */
  readonly name?: string;
  /** Valid names at that place nearest to `name`, best first. */
  readonly suggestions: readonly string[];
  /**
   * One line for people. For an unknown name: `line 2 column 26: \`in-interface-lst\` is no argument of /ip
   * firewall filter add in RouterOS 7.24; did you mean \`in-interface-list\`?`. For other mistakes:
   * `does not parse as RouterOS: syntax error (line 1 column 10)`.
   */
  readonly message: string;
}

export interface CheckOptions {
  /** The tree to check names against. @default the RouterOS 7.24 tree */
  readonly tree?: CommandTree;
  /** False checks the syntax only, accepting every menu, command and argument name. @default true */
  readonly checkCommands?: boolean;
}

/** The last unknown name the parser looked up, and where it looked. */
interface Miss {
  readonly path: readonly string[];
  readonly verb?: string;
  readonly name: string;
}

/** The catalog, remembering the last command and argument lookups that found nothing. */
function recording(catalog: CommandCatalog): { catalog: CommandCatalog; command?: Miss; argument?: Miss } {
  const record: { catalog: CommandCatalog; command?: Miss; argument?: Miss } = {
    catalog: {
      ...catalog,
      hasCommand: (path, verb) => {
        const found = catalog.hasCommand(path, verb);
        if (!found) record.command = { path, name: verb };
        return found;
      },
      hasArgument: (path, verb, name) => {
        const found = catalog.hasArgument(path, verb, name);
        if (!found) record.argument = { path, verb, name };
        return found;
      },
    },
  };
  return record;
}

/** The problem with `source`, or undefined when it parses against the tree. */
export function checkScript(source: string, options: CheckOptions = {}): ScriptProblem | undefined {
  const tree = options.tree ?? commandTreeFor();
  const record = recording(options.checkCommands === false ? permissiveCatalog : tree.catalog);
  try {
    parseScript(source, record.catalog);
    return undefined;
  } catch (error) {
    if (!(error instanceof RouterOsError)) throw error;
    const named = options.checkCommands === false ? undefined : unknownName(source, error, record, tree);
    return (
      named ?? {
        routerText: error.message,
        ...(error.line === undefined ? {} : { line: error.line, column: error.column ?? 1 }),
        suggestions: [],
        message: `does not parse as RouterOS: ${error.message}`,
      }
    );
  }
}

/** The word that starts at a position of the source as written (1-based), up to a blank or `=`. */
function wordAt(source: string, line: number, column: number): string {
  const text = source.split("\n")[line - 1] ?? "";
  return /^[^\s=[\]{}();"$]*/.exec(text.slice(column - 1))?.[0] ?? "";
}

const menuName = (path: readonly string[]) => `/${path.join(" ")}`;
const commandName = (path: readonly string[], verb: string) => `/${[...path, verb].join(" ")}`;

/** Explains a failure that is an unknown name; undefined for any other failure. */
function unknownName(
  source: string,
  error: RouterOsError,
  record: { command?: Miss; argument?: Miss },
  tree: CommandTree,
): ScriptProblem | undefined {
  const { line, column } = error;
  if (line === undefined || column === undefined) return undefined;
  const at = `line ${line} column ${column}`;
  const version = `RouterOS ${tree.version}`;
  const problem = (name: string, names: readonly string[], what: string): ScriptProblem => {
    const suggestions = suggestNames(name, names);
    const hint = didYouMean(suggestions);
    return {
      routerText: error.message,
      line,
      column,
      name,
      suggestions,
      message: `${at}: \`${name}\` is ${what} in ${version}${hint === "" ? "" : `; ${hint}`}`,
    };
  };
  const badName = /^bad command name (.+)$/.exec(error.text)?.[1];
  if (badName !== undefined) {
    const miss = record.command;
    if (miss !== undefined && miss.name === badName) {
      return problem(
        badName,
        tree.catalog.namesAt?.(miss.path) ?? [],
        `no menu or command at ${menuName(miss.path)}`,
      );
    }
    // `:lcoal`: RouterOS places the error on the name after the colon.
    const text = source.split("\n")[line - 1] ?? "";
    if (text[column - 2] === ":") {
      const globals = (tree.catalog.namesAt?.([]) ?? []).filter((name) => tree.catalog.hasCommand([], name));
      return problem(badName, globals, "no global command");
    }
    return undefined;
  }
  const miss = record.argument;
  if (error.text === "expected end of command" && miss?.verb !== undefined) {
    if (wordAt(source, line, column) !== miss.name) return undefined;
    return problem(
      miss.name,
      tree.catalog.argumentsOf?.(miss.path, miss.verb) ?? [],
      `no argument of ${commandName(miss.path, miss.verb)}`,
    );
  }
  return undefined;
}
