/**
 * `export`: a script that recreates the configuration from a reset router. Only what differs from a fresh
 * router is written, menu by menu in dependency order (`/interface bridge` before `/interface bridge port`),
 * properties in alphabetical order as RouterOS does. Built-in items (ether1, services) appear as `set` lines.
 * Export -> fresh router -> run -> export gives the same text; the header has no timestamp for that reason.
 */
import { quoteValue as quote } from "../language/quote.js";
import { showValue } from "./convert.js";
import { items } from "./items.js";
import type { MenuDef, RouterState } from "./schema.js";
import type { Item } from "./table.js";

export const exportHeader = "# RouterOS 7.24 (simulated) export";

function changes(menu: MenuDef, item: Item, router: RouterState): string[] {
  const always = Object.keys(menu.properties).filter((name) => menu.properties[name]?.exportAlways);
  return [...new Set([...Object.keys(item.values), ...always])]
    .filter((name) => {
      const def = menu.properties[name];
      if (!def || def.readOnly || def.sensitive || name === menu.scope?.prop) return false;
      const reference = item.base?.[name] ?? def.default ?? "";
      return def.exportAlways === true || item.values[name] !== reference;
    })
    .sort()
    .map((name) => {
      const def = menu.properties[name];
      const value = def ? showValue(def, item.values[name] ?? def.default ?? "", router) : "";
      return `${name}=${quote(value)}`;
    });
}

function menuLines(menu: MenuDef, router: RouterState): string[] {
  const lines: string[] = [];
  for (const item of items(menu, router)) {
    if (item.dynamic) continue;
    const props = changes(menu, item, router);
    if (menu.singleton || item.base) {
      if (props.length === 0) continue;
      const selector = menu.singleton
        ? ""
        : ` ${menu.exportSelector?.(item) ?? quote(item.values[menu.key ?? "name"] ?? "")}`;
      lines.push(`set${selector} ${props.join(" ")}`);
    } else {
      lines.push(props.length === 0 ? "add" : `add ${props.join(" ")}`);
    }
  }
  return lines;
}

/** Export of every menu under `prefix` (the root exports everything). */
export function exportConfig(
  menus: readonly MenuDef[],
  prefix: readonly string[],
  router: RouterState,
): string[] {
  const out = [exportHeader];
  for (const menu of menus) {
    if (menu.exported === false || !prefix.every((word, i) => menu.path[i] === word)) continue;
    if (!router.hasTable(menu.table)) continue;
    const lines = menuLines(menu, router);
    if (lines.length > 0) out.push(`/${menu.path.join(" ")}`, ...lines);
  }
  return out;
}
