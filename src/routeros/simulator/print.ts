/**
 * `print` in its forms: the table form (menus with columns), the detail form (`detail`, and menus without
 * columns such as the firewall), `terse` (one item per line, no header), singletons (`name: value` lines),
 * `count-only`. Every form also returns the records, which the API view hands out.
 */
import { RouterOsError } from "../errors.js";
import type { CommandCall, CommandResult, ItemProperties } from "../language/host.js";
import { quoteValue as quote } from "../language/quote.js";
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

function flagsLegend(menu: MenuDef): string {
  const parts = flagsOf(menu).map((flag) => `${flag.letter} - ${flag.name.toUpperCase()}`);
  if (menu.properties.disabled) parts.unshift("X - DISABLED");
  return `Flags: ${parts.join("; ")}`;
}

function visibleProps(menu: MenuDef, proplist?: readonly string[]): string[] {
  const names = [...Object.keys(menu.virtual ?? {}), ...Object.keys(menu.properties)].filter(
    (name) => name !== "disabled" && name !== "comment" && !menu.properties[name]?.sensitive,
  );
  return proplist ? names.filter((name) => proplist.includes(name)) : names;
}

function tableForm(menu: MenuDef, list: readonly Item[], router: RouterState, columns: readonly string[]) {
  const rows = list.map((item, index) => ({
    head: `${index} ${flagLetters(menu, item, router)}`,
    comment: item.values.comment,
    cells: columns.map((name) => consoleShown(menu, item, name, router)),
  }));
  const headWidth = Math.max(1, ...rows.map((row) => row.head.length)) + 1;
  const widths = columns.map((name, i) =>
    Math.max(name.length, ...rows.map((row) => row.cells[i]?.length ?? 0)),
  );
  const line = (head: string, cells: readonly string[]) =>
    `${head.padEnd(headWidth)}${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ")}`.trimEnd();
  const out = [flagsLegend(menu), `Columns: ${columns.map((c) => c.toUpperCase()).join(", ")}`];
  out.push(
    line(
      "#",
      columns.map((c) => c.toUpperCase()),
    ),
  );
  for (const row of rows) {
    if (row.comment) out.push(`${" ".repeat(headWidth)};;; ${row.comment}`);
    out.push(line(row.head, row.cells));
  }
  return out;
}

function detailLine(menu: MenuDef, item: Item, router: RouterState, names: readonly string[]): string {
  const sparse = menu.sparsePrint;
  return names
    .filter(
      (name) =>
        !sparse ||
        sparse.includes(name) ||
        item.values[name] !== undefined ||
        menu.shownWhen?.[name]?.(item.values) === true,
    )
    .map((name) => [name, consoleShown(menu, item, name, router)] as const)
    .filter(([, value]) => value !== "")
    .map(([name, value]) => `${name}=${quote(value)}`)
    .join(" ");
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
    const width = Math.max(0, ...names.map((name) => name.length));
    const output = item
      ? names.map((name) => `${name.padStart(width + 2)}: ${consoleShown(menu, item, name, router)}`)
      : [];
    return { output, records };
  }
  const terse = call.named.has("terse");
  if (menu.columns && !terse && !call.named.has("detail")) {
    return { output: tableForm(menu, list, router, proplist ? names : menu.columns), records };
  }
  const output = terse ? [] : [flagsLegend(menu)];
  list.forEach((item, index) => {
    const head = `${String(index).padStart(2)} ${flagLetters(menu, item, router)}`.padEnd(6);
    const comment = item.values.comment;
    if (terse) {
      output.push(
        `${head}${comment ? `comment=${quote(comment)} ` : ""}${detailLine(menu, item, router, names)}`,
      );
      return;
    }
    if (comment) output.push(`${head};;; ${comment}`);
    output.push(`${comment ? " ".repeat(head.length) : head}${detailLine(menu, item, router, names)}`);
  });
  return { output, records };
}

/** Keeps the `.proplist` keys of a record (all of them without a proplist). */
export function pick(record: ItemProperties, proplist?: readonly string[]): ItemProperties {
  if (!proplist) return record;
  return Object.fromEntries(Object.entries(record).filter(([key]) => proplist.includes(key)));
}
