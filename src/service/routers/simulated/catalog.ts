/**
 * Which words are menus, which are commands and which arguments each command takes, derived from the menu
 * declarations. The parser uses it to split `/ip address add`, and to reject `/ip adress` with `bad command
 * name` and `add adress=...` with `expected end of command` before a script runs.
 */
import type { CommandCatalog } from "../../../routeros/host.js";
import { argumentsOf, exportArguments } from "./arguments.js";
import { menus } from "./menus/index.js";
import type { MenuDef } from "./schema.js";

const byPath = new Map(menus.map((menu) => [menu.path.join(" "), menu]));
const prefixes = new Set(
  menus.flatMap((menu) => menu.path.map((_, i) => menu.path.slice(0, i + 1).join(" "))),
);

function verbsFor(menu: MenuDef): ReadonlySet<string> {
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

/** Each menu's commands with the arguments they take. */
const commandsByPath = new Map(
  menus.map((menu) => [
    menu.path.join(" "),
    new Map([...verbsFor(menu)].map((verb) => [verb, new Set(argumentsOf(menu, verb))])),
  ]),
);
/** A path that only leads to menus (`/ip`, the root) has one command: `export` of everything below it. */
const exportOnly = new Map([["export", new Set(exportArguments)]]);

/** The arguments of the command `verb` of the menu at `path`, or undefined when there is no such command. */
function command(path: readonly string[], verb: string): ReadonlySet<string> | undefined {
  const key = path.join(" ");
  const commands =
    commandsByPath.get(key) ?? (path.length === 0 || prefixes.has(key) ? exportOnly : undefined);
  return commands?.get(verb);
}

export function menuAt(path: readonly string[]): MenuDef | undefined {
  return byPath.get(path.join(" "));
}

export const catalog: CommandCatalog = {
  isMenu: (path) => path.length === 0 || prefixes.has(path.join(" ")),
  hasCommand: (path, verb) => command(path, verb) !== undefined,
  hasArgument: (path, verb, name) => command(path, verb)?.has(name) ?? false,
};
