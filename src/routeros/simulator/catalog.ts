/**
 * Which words are menus, which are commands and which arguments each command takes: RouterOS 7.24's own
 * catalog (`src/routeros/catalog`), joined with what the hand-written menus declare. The parser uses it to
 * split `/ip address add`, and to reject `/ip adress` with `bad command name` and `add adress=...` with
 * `expected end of command` before a script runs. Built on first use.
 */

import { routerOsCatalog } from "../catalog/index.js";
import type { CommandCatalog } from "../language/host.js";
import { allMenus } from "./all-menus.js";
import { argumentsOf, exportArguments } from "./arguments.js";
import type { MenuDef } from "./schema.js";

interface Index {
  readonly byPath: ReadonlyMap<string, MenuDef>;
  readonly prefixes: ReadonlySet<string>;
  readonly commands: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
}

/** The verbs the simulator runs for a menu, whatever RouterOS lists (custom verbs, `print` of `/log`). */
function ownVerbs(menu: MenuDef): ReadonlySet<string> {
  const verbs = new Set(["export", ...Object.keys(menu.verbs ?? {})]);
  if (Object.keys(menu.properties).length === 0) return verbs;
  for (const verb of ["set", "unset", "get", "print"]) verbs.add(verb);
  if (menu.singleton) return verbs;
  verbs.add("find");
  if (menu.canRemove !== false) verbs.add("remove");
  if (menu.canAdd !== false) verbs.add("add");
  if (menu.properties.disabled) verbs.add("enable").add("disable");
  if (menu.properties.comment) verbs.add("comment");
  if (menu.ordered) verbs.add("move");
  return verbs;
}

let index: Index | undefined;

function build(): Index {
  const ros = routerOsCatalog();
  const menus = allMenus();
  const commands = new Map<string, Map<string, Set<string>>>();
  for (const menu of menus) {
    const verbs = new Map<string, Set<string>>();
    const rosVerbs = ros.commandsOf(menu.path) ?? [];
    for (const verb of new Set([...ownVerbs(menu), ...rosVerbs])) {
      const own = [...argumentsOf(menu, verb), ...(verb === "find" ? selectors : [])];
      verbs.set(verb, new Set([...(ros.argumentsOf(menu.path, verb) ?? []), ...own]));
    }
    commands.set(menu.path.join(" "), verbs);
  }
  return {
    byPath: new Map(menus.map((menu) => [menu.path.join(" "), menu])),
    prefixes: new Set(menus.flatMap((menu) => menu.path.map((_, i) => menu.path.slice(0, i + 1).join(" ")))),
    commands,
  };
}

function built(): Index {
  index ??= build();
  return index;
}

/**
 * Read-only properties real exports select items by (`set [ find default=yes ] ...`, `[ find
 * default-name=wifi1 ]`). Every `find` takes them; where no item has one, the selection is empty.
 */
const selectors = ["default", "default-name", "dynamic", "builtin", "invalid", "running"];

/** A path that only leads to menus (the root) has one command: `export` of everything below it. */
const exportOnly = new Map([["export", new Set(exportArguments)]]);

/** The arguments of the command `verb` of the menu at `path`, or undefined when there is no such command. */
function command(path: readonly string[], verb: string): ReadonlySet<string> | undefined {
  const { commands, prefixes } = built();
  const key = path.join(" ");
  const found = commands.get(key) ?? (path.length === 0 || prefixes.has(key) ? exportOnly : undefined);
  return found?.get(verb);
}

export function menuAt(path: readonly string[]): MenuDef | undefined {
  return built().byPath.get(path.join(" "));
}

const isMenu = (path: readonly string[]) => path.length === 0 || built().prefixes.has(path.join(" "));

export const catalog: CommandCatalog = {
  isMenu,
  hasCommand: (path, verb) => command(path, verb) !== undefined,
  hasArgument: (path, verb, name) => command(path, verb)?.has(name) ?? false,
  namesAt: (path) => {
    const prefix = path.join(" ");
    const menus = [...built().prefixes]
      .filter(
        (key) =>
          key.split(" ").length === path.length + 1 && (path.length === 0 || key.startsWith(`${prefix} `)),
      )
      .map((key) => key.split(" ")[path.length] ?? "");
    const verbs = built().commands.get(prefix)?.keys() ?? exportOnly.keys();
    return [...menus, ...verbs];
  },
  argumentsOf: (path, verb) => [...(command(path, verb) ?? [])],
};

/**
 * The first word of a path (`ip adress print`) that names neither a menu nor a command: the `(word)` of
 * RouterOS's `no such command or directory (adress)`, as its API and REST API both answer.
 */
export function unknownPathWord(segments: readonly string[]): string {
  for (let i = 0; i < segments.length; i++) {
    const word = segments[i] ?? "";
    if (!catalog.isMenu(segments.slice(0, i + 1)) && !catalog.hasCommand(segments.slice(0, i), word))
      return word;
  }
  return segments[segments.length - 1] ?? "";
}
