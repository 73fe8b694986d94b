/**
 * Which words are menus and which are commands, derived from the menu declarations. The parser uses it to
 * split `/ip address add` and to reject `/ip adress` with `bad command name`.
 */
import type { CommandCatalog } from "../../../routeros/host.js";
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

const verbsByPath = new Map(menus.map((menu) => [menu.path.join(" "), verbsFor(menu)]));

export function menuAt(path: readonly string[]): MenuDef | undefined {
  return byPath.get(path.join(" "));
}

export const catalog: CommandCatalog = {
  isMenu: (path) => path.length === 0 || prefixes.has(path.join(" ")),
  hasCommand: (path, verb) => {
    const verbs = verbsByPath.get(path.join(" "));
    if (verbs) return verbs.has(verb);
    return verb === "export" && (path.length === 0 || prefixes.has(path.join(" ")));
  },
};
