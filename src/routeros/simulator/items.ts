/**
 * Reading items the way RouterOS shows them: effective values (stored or default), flags, the record that
 * `where`, `print` and the API see, and the selection of items from `numbers` arguments.
 */
import { RouterOsError } from "../errors.js";
import type { ItemProperties, RosValue } from "../language/host.js";
import { apiValue, formatId, isDangling, parseId, showValue } from "./convert.js";
import type { Flag, MenuDef, RouterState } from "./schema.js";
import type { Item } from "./table.js";

export const noSuchItem = () => new RouterOsError("no such item");

/** Flags every list has unless the menu lists its own. */
export const standardFlags: readonly Flag[] = [
  { letter: "I", name: "invalid", test: (item, router, menu) => isInvalid(menu, item, router) },
  { letter: "D", name: "dynamic", test: (item) => item.dynamic === true },
];

export function flagsOf(menu: MenuDef): readonly Flag[] {
  return menu.flags ?? standardFlags;
}

/** An item is invalid when a reference it holds points at an item that is gone. */
export function isInvalid(menu: MenuDef, item: Item, router: RouterState): boolean {
  return Object.entries(item.values).some(([name, stored]) => {
    const def = menu.properties[name];
    return def !== undefined && isDangling(def, stored, router);
  });
}

export function items(menu: MenuDef, router: RouterState): readonly Item[] {
  const table = router.table(menu.table);
  // Settings menus made from the catalog get their one item when first used, not at every reset.
  if (menu.singleton && table.items.length === 0) table.insert({}, { base: {} });
  const all = table.items;
  const scope = menu.scope;
  return scope ? all.filter((item) => item.values[scope.prop] === scope.value) : all;
}

export function stored(menu: MenuDef, item: Item, name: string): string {
  return item.values[name] ?? menu.properties[name]?.default ?? "";
}

/** The value print and export show for one property. */
export function shown(menu: MenuDef, item: Item, name: string, router: RouterState): string {
  const virtual = menu.virtual?.[name];
  if (virtual) return virtual.get(router);
  const def = menu.properties[name];
  return def ? showValue(def, stored(menu, item, name), router) : "";
}

/**
 * The record of one item in RouterOS names: `.id`, the properties in declared order (unset ones left out,
 * booleans as true/false), the flags, then `disabled` and `comment`, as the RouterOS API orders them.
 */
export function recordOf(menu: MenuDef, item: Item, router: RouterState): ItemProperties {
  const record: Record<string, string> = {};
  if (!menu.singleton) record[".id"] = formatId(item.id);
  const names = [...Object.keys(menu.virtual ?? {}), ...Object.keys(menu.properties)];
  const trailing = new Set(["disabled", "comment"]);
  const sparse = menu.sparsePrint;
  const always = new Set([...(sparse ?? []), ...(menu.apiAlways ?? [])]);
  for (const name of names) {
    const def = menu.properties[name];
    if (trailing.has(name) || def?.sensitive) continue;
    // A rule prints what was written and the few properties RouterOS always gives, not every default.
    if (
      sparse &&
      item.values[name] === undefined &&
      !always.has(name) &&
      !menu.shownWhen?.[name]?.(item.values)
    )
      continue;
    const value = shown(menu, item, name, router);
    if (value !== "" || def?.default !== undefined || (sparse && always.has(name)))
      record[name] = def ? apiValue(def, value) : value;
  }
  if (!menu.singleton)
    for (const flag of flagsOf(menu)) record[flag.name] = String(flag.test(item, router, menu));
  if (menu.properties.disabled) record.disabled = stored(menu, item, "disabled") === "yes" ? "true" : "false";
  const comment = item.values.comment;
  if (comment) record.comment = comment;
  return record;
}

/**
 * Items named by a `numbers` argument: ids (`*1A`), numbers from the last print (`0`), names of named items
 * (`ether1`), comma lists of those, or the id list `[find ...]` returned.
 */
export function select(
  menu: MenuDef,
  value: RosValue | undefined,
  router: RouterState,
  numbering: readonly number[] | undefined,
): Item[] {
  if (value === undefined || value === null)
    throw new RouterOsError("missing value(s) of argument(s) numbers");
  const words = Array.isArray(value) ? value.flatMap((v) => String(v).split(",")) : String(value).split(",");
  const list = items(menu, router);
  const chosen: Item[] = [];
  for (const word of words) {
    if (word === "") continue;
    const item = pick(menu, list, word, numbering);
    if (!item) throw noSuchItem();
    if (!chosen.includes(item)) chosen.push(item);
  }
  return chosen;
}

function pick(menu: MenuDef, list: readonly Item[], word: string, numbering?: readonly number[]) {
  const id = parseId(word);
  if (id !== undefined) return list.find((item) => item.id === id);
  if (/^\d+$/.test(word)) {
    const index = Number(word);
    const wanted = numbering ? numbering[index] : list[index]?.id;
    return list.find((item) => item.id === wanted);
  }
  const key = menu.key;
  return key === undefined ? undefined : list.find((item) => item.values[key] === word);
}

/** `find name=value` and API `?name=value` equality; `yes`/`no` match the true/false of a record. */
export function matches(record: ItemProperties, name: string, wanted: string): boolean {
  const actual = record[name];
  if (actual === undefined) return wanted === "";
  if (actual === wanted) return true;
  const asBool: Record<string, string> = { yes: "true", no: "false" };
  return asBool[wanted] === actual;
}
