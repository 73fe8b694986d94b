/**
 * The console's text of `print` in RouterOS 7, from a neutral view of the items (their flags, comment and
 * values), so the layout is one module whatever the menu:
 *
 * - the table form: `Flags:` with only the flags some item has (upper case), `Columns:`, a `#` header, the
 *   `;;; comment` line at the left edge above its item, numbers right-aligned in their column;
 * - the detail form: `Flags:` with every flag of the menu (lower case), one column per flag group, the comment
 *   after the flags and the properties below it at the same indent, string values quoted, a blank line
 *   between items;
 * - the terse form: one line per item, no header, `comment=` first, values as they are;
 * - settings (a menu of one item): `name: value` lines, names right-aligned.
 *
 * The layout was read from RouterOS 7 console transcripts; line wrapping at the terminal's width is left out.
 */
import { quoteString } from "../../language/quote.js";

export interface FlagDescription {
  readonly letter: string;
  readonly name: string;
}

/** Flags that share one column: at most one of them is shown per item (`X - disabled, I - invalid`). */
export type FlagGroup = readonly FlagDescription[];

export interface PrintedItem {
  /** The letters of the flags this item has. */
  readonly flags: string;
  readonly comment?: string | undefined;
}

export interface TableItem extends PrintedItem {
  /** One cell per column, in the columns' order. */
  readonly cells: readonly string[];
}

export interface PrintedProperty {
  readonly name: string;
  readonly value: string;
  /** A string property: the detail form shows it in double quotes (`name="ether1"`). */
  readonly quoted?: boolean;
}

export interface DetailItem extends PrintedItem {
  readonly properties: readonly PrintedProperty[];
}

const legend = (groups: readonly FlagGroup[], name: (flag: FlagDescription) => string) =>
  `Flags: ${groups.map((group) => group.map((flag) => `${flag.letter} - ${name(flag)}`).join(", ")).join("; ")}`;

/** The flag cells of one item: one character per group, the group's letter the item has or a space. */
function flagCells(groups: readonly FlagGroup[], flags: string): string {
  return groups.map((group) => group.find((flag) => flags.includes(flag.letter))?.letter ?? " ").join("");
}

const isNumber = (text: string) => /^-?\d+$/.test(text);

export function formatTable(
  groups: readonly FlagGroup[],
  columns: readonly string[],
  items: readonly TableItem[],
): string[] {
  // Only the groups some listed item has a flag of get a column, and only those flags a legend entry.
  const shownGroups = groups
    .map((group) => group.filter((flag) => items.some((item) => item.flags.includes(flag.letter))))
    .filter((group) => group.length > 0);
  const indexWidth = String(Math.max(0, items.length - 1)).length;
  const heads = items.map((item, index) => {
    const number = String(index).padStart(indexWidth);
    return shownGroups.length === 0 ? number : `${number} ${flagCells(shownGroups, item.flags)}`;
  });
  const headWidth = Math.max("#".padStart(indexWidth).length, ...heads.map((head) => head.length));
  const titles = columns.map((column) => column.toUpperCase());
  const widths = titles.map((title, i) =>
    Math.max(title.length, ...items.map((item) => item.cells[i]?.length ?? 0)),
  );
  const numeric = columns.map((_, i) =>
    items.some((item) => (item.cells[i] ?? "") !== "")
      ? items.every((item) => (item.cells[i] ?? "") === "" || isNumber(item.cells[i] ?? ""))
      : false,
  );
  const line = (head: string, cells: readonly string[]) =>
    `${head.padEnd(headWidth)} ${cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join("  ")}`.trimEnd();
  const out: string[] = [];
  if (shownGroups.length > 0) out.push(legend(shownGroups, (flag) => flag.name.toUpperCase()));
  out.push(`Columns: ${titles.join(", ")}`, line("#".padStart(indexWidth), titles));
  items.forEach((item, index) => {
    if (item.comment) out.push(`;;; ${item.comment}`);
    out.push(line(heads[index] ?? "", item.cells));
  });
  return out;
}

/** The number and flag cells that start an item in the detail and terse forms: ` 0 X  `. */
function itemHead(groups: readonly FlagGroup[], items: readonly PrintedItem[], index: number): string {
  const width = Math.max(2, String(Math.max(0, items.length - 1)).length);
  return `${String(index).padStart(width)} ${flagCells(groups, items[index]?.flags ?? "")} `;
}

const detailValue = (property: PrintedProperty) =>
  `${property.name}=${property.quoted ? quoteString(property.value) : property.value}`;

export function formatDetail(groups: readonly FlagGroup[], items: readonly DetailItem[]): string[] {
  const out = [legend(groups, (flag) => flag.name)];
  items.forEach((item, index) => {
    if (index > 0) out.push("");
    const head = itemHead(groups, items, index);
    const properties = item.properties.map(detailValue).join(" ");
    if (item.comment) {
      out.push(`${head};;; ${item.comment}`);
      if (properties !== "") out.push(`${" ".repeat(head.length)}${properties}`);
    } else {
      out.push(`${head}${properties}`.trimEnd());
    }
  });
  return out;
}

export function formatTerse(groups: readonly FlagGroup[], items: readonly DetailItem[]): string[] {
  return items.map((item, index) => {
    const properties = item.properties.map((property) => `${property.name}=${property.value}`);
    if (item.comment) properties.unshift(`comment=${item.comment}`);
    return `${itemHead(groups, items, index)}${properties.join(" ")}`.trimEnd();
  });
}

/** A menu of one item (`/system identity`, `/ip dns`): `name: value`, the names right-aligned. */
export function formatSettings(properties: readonly PrintedProperty[]): string[] {
  const width = Math.max(0, ...properties.map((property) => property.name.length));
  return properties.map((property) => `${property.name.padStart(width + 2)}: ${property.value}`);
}
