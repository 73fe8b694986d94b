/**
 * `print` in its forms: the table form (menus with columns), the detail form (`detail`, and menus without
 * columns such as the firewall), `terse` (one item per line, no header), singletons (`name: value` lines),
 * `count-only`. Every form also returns the records, which the API view hands out.
 */
import { RouterOsError } from "../errors.js";
import type { CommandCall, CommandResult, ItemProperties } from "../language/host.js";
import {
  type DetailItem,
  type FlagDescription,
  type FlagGroup,
  formatDetail,
  formatSettings,
  formatTable,
  formatTerse,
} from "./console/format-print.js";
import { flagsOf, recordOf, shown } from "./items.js";
import { type MenuDef, type RouterState, valueText } from "./schema.js";
import type { Item } from "./table.js";
import { filtered, menuKey, selectIn } from "./verbs.js";

/** What `print` takes besides property filters: its layout flags, `proplist` and `from`. */
export const printOptions: readonly string[] = [
  "detail",
  "terse",
  "count-only",
  "without-paging",
  "brief",
  "proplist",
  "from",
  "as-value",
];

/** A value as the console prints it: the API's typed value (bytes) in the console's words (`225.0MiB`). */
function consoleShown(menu: MenuDef, item: Item, name: string, router: RouterState): string {
  const value = shown(menu, item, name, router);
  const text = menu.properties[name]?.consoleText;
  return text && value !== "" ? text(value) : value;
}

/** The menu's flags in the columns the console gives them (RouterOS 7 shares some, below). */
function flagGroups(menu: MenuDef): FlagGroup[] {
  const flags: FlagDescription[] = flagsOf(menu).map(({ letter, name }) => ({ letter, name }));
  if (menu.properties.disabled) flags.unshift({ letter: "X", name: "disabled" });
  const groups: FlagDescription[][] = [];
  for (const flag of flags) {
    const last = groups[groups.length - 1];
    const lower = (f: FlagDescription) => f.letter !== f.letter.toUpperCase();
    // X with I, and the routing protocols (`c - connect, s - static`), each share one column.
    const joins =
      (flag.letter === "I" && last?.[0]?.letter === "X" && last.length === 1) ||
      (lower(flag) && last?.every(lower) === true);
    if (joins && last) last.push(flag);
    else groups.push([flag]);
  }
  return groups;
}

function flagLetters(menu: MenuDef, item: Item, router: RouterState): string {
  const disabled = item.values.disabled === "yes" ? "X" : "";
  return (
    disabled +
    flagsOf(menu)
      .filter((flag) => flag.test(item, router, menu))
      .map((flag) => flag.letter)
      .join("")
  );
}

function visibleProps(menu: MenuDef, proplist?: readonly string[]): string[] {
  const names = [...Object.keys(menu.virtual ?? {}), ...Object.keys(menu.properties)].filter(
    (name) => name !== "disabled" && name !== "comment" && !menu.properties[name]?.sensitive,
  );
  return proplist ? names.filter((name) => proplist.includes(name)) : names;
}

/**
 * Whether the detail form quotes a value, as RouterOS quotes its text properties (`name="ether1"`) but not
 * numbers, addresses or names of things (`chain=input`, `mtu=1500`). The simulator types many such values
 * as strings, so the value decides too.
 */
function isText(menu: MenuDef, name: string, value: string): boolean {
  return (
    menu.properties[name]?.type.kind === "string" && name !== "chain" && !/^[0-9A-Fa-f.:/-]*$/.test(value)
  );
}

function detailItem(menu: MenuDef, item: Item, router: RouterState, names: readonly string[]): DetailItem {
  const sparse = menu.sparsePrint;
  const properties = names
    .filter(
      (name) =>
        !sparse ||
        sparse.includes(name) ||
        item.values[name] !== undefined ||
        menu.shownWhen?.[name]?.(item.values) === true,
    )
    .map((name) => ({
      name,
      value: consoleShown(menu, item, name, router),
      quoted: isText(menu, name, shown(menu, item, name, router)),
    }))
    .filter((property) => property.value !== "");
  return { flags: flagLetters(menu, item, router), comment: item.values.comment, properties };
}

export function print(call: CommandCall, router: RouterState, menu: MenuDef): CommandResult {
  // A bare word print does not take as a flag (`print detial`) is a mistake, not a value print ignores.
  if (call.positional.length > 0) throw new RouterOsError("expected end of command");
  const proplistText = call.named.get("proplist");
  const proplist = proplistText === undefined ? undefined : valueText(proplistText).split(",");
  const unknown = proplist?.find((name) => name !== ".id" && !menu.properties[name] && !menu.virtual?.[name]);
  if (unknown !== undefined) throw new RouterOsError("input does not match any value of proplist");
  const from = call.named.get("from");
  const chosen = from === undefined ? undefined : selectIn(menu, from, router);
  const list = filtered(call, router, menu, printOptions).filter((item) => !chosen || chosen.includes(item));
  const records = list.map((item) => pick(recordOf(menu, item, router), proplist));
  if (call.named.has("count-only")) return { value: list.length, output: [String(list.length)], records };
  if (!menu.singleton)
    router.numbering.set(
      menuKey(menu),
      list.map((item) => item.id),
    );
  const names = visibleProps(menu, proplist);
  if (menu.singleton) {
    const item = list[0];
    const output = item
      ? formatSettings(names.map((name) => ({ name, value: consoleShown(menu, item, name, router) })))
      : [];
    return { output, records };
  }
  const groups = flagGroups(menu);
  const terse = call.named.has("terse");
  if (menu.columns && !terse && !call.named.has("detail")) {
    const columns = proplist ? names : menu.columns;
    const rows = list.map((item) => ({
      flags: flagLetters(menu, item, router),
      comment: item.values.comment,
      cells: columns.map((name) => consoleShown(menu, item, name, router)),
    }));
    return { output: formatTable(groups, columns, rows), records };
  }
  const details = list.map((item) => detailItem(menu, item, router, names));
  return { output: terse ? formatTerse(groups, details) : formatDetail(groups, details), records };
}

/** Keeps the `.proplist` keys of a record (all of them without a proplist). */
export function pick(record: ItemProperties, proplist?: readonly string[]): ItemProperties {
  if (!proplist) return record;
  return Object.fromEntries(Object.entries(record).filter(([key]) => proplist.includes(key)));
}
