/**
 * Every menu of the simulated router: the hand-written ones (with the arguments RouterOS adds, see
 * `withCatalog`) and a generic one for every other menu of RouterOS 7.24. Built on first use, so that
 * importing the simulator does not parse the catalog.
 *
 * Export order: a menu comes after the menus its references point into. Interface types made from the
 * catalog (wireguard, gre, eoip...) follow the ethernet ports, since addresses, bridge ports and lists name
 * them; the other generic menus follow every hand-written one (they refer to interfaces and lists only).
 */
import { routerOsCatalog } from "../catalog/index.js";
import { genericMenu, isInterfaceType, withCatalog } from "./generic.js";
import { menus as handWritten } from "./menus/index.js";
import type { MenuDef } from "./schema.js";

let built: readonly MenuDef[] | undefined;

function build(): readonly MenuDef[] {
  const declared = new Set(handWritten.map((menu) => menu.path.join(" ")));
  const generic = routerOsCatalog()
    .menuPaths.filter((path) => path !== "" && !declared.has(path))
    .map((path) => genericMenu(path.split(" ")));
  const interfaceTypes = generic.filter((menu) => isInterfaceType(menu.path));
  const rest = generic.filter((menu) => !interfaceTypes.includes(menu));
  const own = handWritten.map(withCatalog);
  const split = own.findIndex((menu) => menu.path.join(" ") === "interface ethernet") + 1;
  return [...own.slice(0, split), ...interfaceTypes, ...own.slice(split), ...rest];
}

export function allMenus(): readonly MenuDef[] {
  built ??= build();
  return built;
}
