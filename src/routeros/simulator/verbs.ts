/**
 * The generic verbs every list or singleton menu understands, driven by the menu's declaration:
 * add, set, unset, remove, enable, disable, comment, get, find, move. Print and export live in their own
 * files. Each verb throws `RouterOsError` with RouterOS's text; the interpreter adds the position.
 */
import { RouterOsError } from "../errors.js";
import type { CommandCall, CommandResult, RosValue } from "../language/host.js";
import { type ArrayEntry, arrayOf } from "../runtime/arrays.js";
import { formatId, parseValue, showValue } from "./convert.js";
import { items, matches, noSuchItem, recordOf, select, stored } from "./items.js";
import { type MenuDef, type RouterState, valueText } from "./schema.js";
import type { Item } from "./table.js";

export const badCommand = (verb: string) => new RouterOsError(`bad command name ${verb}`);
const endOfCommand = () => new RouterOsError("expected end of command");

export const menuKey = (menu: MenuDef) => menu.path.join("/");

/** The items a verb acts on: the singleton's one item, or those named by `numbers` (positional or named). */
export function targets(call: CommandCall, router: RouterState, menu: MenuDef): Item[] {
  if (menu.singleton) return [...items(menu, router)];
  return selectIn(menu, call.named.get("numbers") ?? call.positional[0], router);
}

/** Items named by an argument, numbers counted from the menu's last print. */
export function selectIn(menu: MenuDef, value: RosValue | undefined, router: RouterState): Item[] {
  return select(menu, value, router, router.numbering.get(menuKey(menu)));
}

/**
 * Parses the writable named arguments of add/set; `skip` names arguments the verb handles itself. The router
 * admitted only the verb's arguments (see arguments.ts), so every other name is a writable property.
 */
function writes(call: CommandCall, router: RouterState, menu: MenuDef, skip: readonly string[]) {
  const values: Record<string, string> = {};
  const virtual: [string, string][] = [];
  const unsets: string[] = [];
  for (const name of flagWords(call, menu)) values[name] = "yes";
  for (const [name, raw] of call.named) {
    if (skip.includes(name)) continue;
    if (name.startsWith(UNSET_WORD)) {
      unsets.push(checkUnsettable(menu, name.slice(UNSET_WORD.length)));
      continue;
    }
    const def = menu.properties[name];
    if (def) values[name] = parseValue(name, def, valueText(raw), router);
    else virtual.push([name, valueText(raw)]);
  }
  const both = unsets.find((name) => values[name] !== undefined);
  if (both !== undefined) throw new RouterOsError(`both ${both} and ${UNSET_WORD}${both} given`);
  return { values, virtual, unsets };
}

/**
 * The API's unset word: `=!comment=` in a `set` (or `add`) takes the property back to its default, as `unset`
 * does; Ansible's api_modify sends one for every property a rule no longer declares.
 */
export const UNSET_WORD = "!";

/** A property `unset` may clear: one the menu has, that a script may write and an item may lack. */
function checkUnsettable(menu: MenuDef, name: string): string {
  const def = menu.properties[name];
  if (!def || def.readOnly || def.required || menu.key === name)
    throw new RouterOsError("input does not match any value of value-name");
  return name;
}

/** The stored values of an item once `names` are unset: gone, or back to a built-in item's own value. */
function withoutValues(item: Item, values: Record<string, string>, names: readonly string[]) {
  const result = { ...values };
  for (const name of names) {
    const base = item.base?.[name];
    if (base === undefined) delete result[name];
    else result[name] = base;
  }
  return result;
}

/**
 * Properties written as a bare word (`/routing table add fib name=x`), as exports write RouterOS's flags.
 * `set` names its items first, so only the words after that count.
 */
function flagWords(call: CommandCall, menu: MenuDef): string[] {
  const first = call.verb === "add" || menu.singleton || call.named.has("numbers") ? 0 : 1;
  return call.positional
    .slice(first)
    .map((value) => (typeof value === "string" ? value : ""))
    .filter((word) => menu.properties[word]?.type.kind === "string" && !menu.properties[word]?.readOnly);
}

function checkUnique(menu: MenuDef, values: Record<string, string>, router: RouterState, self?: Item) {
  const all = router.table(menu.table).items;
  for (const rule of menu.unique ?? []) {
    const mine = rule.keys.map((k) => values[k] ?? menu.properties[k]?.default ?? "");
    const clash = all.some(
      (item) =>
        item !== self && !item.dynamic && rule.keys.every((k, i) => stored(menu, item, k) === mine[i]),
    );
    if (clash) throw new RouterOsError(rule.error);
  }
}

function checkRequired(menu: MenuDef, values: Record<string, string>) {
  const missing = Object.entries(menu.properties)
    .filter(([name, def]) => def.required && (values[name] ?? "") === "")
    .map(([name]) => name);
  if (missing.length > 0) throw new RouterOsError(`missing value(s) of argument(s) ${missing.join(", ")}`);
}

function autoName(menu: MenuDef, router: RouterState): string {
  const taken = new Set(router.table(menu.table).items.map((item) => item.values.name));
  let n = 1;
  while (taken.has(`${menu.autoName}${n}`)) n++;
  return `${menu.autoName}${n}`;
}

function add(call: CommandCall, router: RouterState, menu: MenuDef): CommandResult {
  if (menu.singleton || menu.canAdd === false) throw badCommand("add");
  if (call.positional.length > flagWords(call, menu).length) throw endOfCommand();
  const skip = menu.ordered ? ["place-before", "copy-from"] : ["copy-from"];
  // An unset word in `add` names a property the new item will not have: checked, nothing to store.
  const { values: written } = writes(call, router, menu, skip);
  const copyFrom = call.named.get("copy-from");
  const source = copyFrom === undefined ? {} : selectIn(menu, copyFrom, router)[0]?.values;
  const values: Record<string, string> = { ...source, ...written };
  if (menu.scope) values[menu.scope.prop] = menu.scope.value;
  if (menu.autoName && menu.key && values[menu.key] === undefined) values[menu.key] = autoName(menu, router);
  checkRequired(menu, values);
  menu.complete?.(values, router);
  checkUnique(menu, values, router);
  const placeBefore = call.named.get("place-before");
  const before = placeBefore === undefined ? undefined : selectIn(menu, placeBefore, router)[0]?.id;
  const item = router.table(menu.table).insert(values, { before });
  return { value: formatId(item.id) };
}

function set(call: CommandCall, router: RouterState, menu: MenuDef): CommandResult {
  const chosen = targets(call, router, menu);
  const { values, virtual, unsets } = writes(call, router, menu, ["numbers"]);
  for (const [name, value] of virtual) menu.virtual?.[name]?.set(router, value);
  for (const item of chosen) {
    const merged = withoutValues(item, { ...item.values, ...values }, unsets);
    if (menu.key && merged[menu.key] === "")
      throw new RouterOsError(`invalid value for argument ${menu.key}`);
    menu.complete?.(merged, router);
    checkUnique(menu, merged, router, item);
    item.values = merged;
  }
  return {};
}

function unset(call: CommandCall, router: RouterState, menu: MenuDef): CommandResult {
  const names = call.named.has("value-name")
    ? valueText(call.named.get("value-name") ?? "").split(",")
    : call.positional.slice(menu.singleton ? 0 : 1).map((v) => valueText(v));
  const chosen = targets(call, router, menu);
  for (const name of names) checkUnsettable(menu, name);
  for (const item of chosen) item.values = withoutValues(item, item.values, names);
  return {};
}

function remove(call: CommandCall, router: RouterState, menu: MenuDef): CommandResult {
  if (menu.singleton) throw badCommand("remove");
  const chosen = targets(call, router, menu);
  for (const item of chosen) {
    if (item.base) throw new RouterOsError("failure: can not remove built-in item");
    if (item.dynamic) throw new RouterOsError("failure: can not remove dynamic item");
  }
  for (const item of chosen) router.table(menu.table).remove(item.id);
  return {};
}

function setDisabled(disabled: "yes" | "no") {
  return (call: CommandCall, router: RouterState, menu: MenuDef): CommandResult => {
    if (!menu.properties.disabled) throw badCommand(disabled === "yes" ? "disable" : "enable");
    for (const item of targets(call, router, menu)) item.values = { ...item.values, disabled };
    return {};
  };
}

function comment(call: CommandCall, router: RouterState, menu: MenuDef): CommandResult {
  const text = call.named.get("comment") ?? call.positional[1];
  if (text === undefined) throw new RouterOsError("missing value(s) of argument(s) comment");
  for (const item of targets(call, router, menu)) item.values = { ...item.values, comment: valueText(text) };
  return {};
}

/**
 * `get` returns typed values: booleans and integers as such, everything else as text. Without a value name it
 * returns the whole item as an array with keys (`.id` and every property the item shows), as RouterOS 7 does.
 */
function get(call: CommandCall, router: RouterState, menu: MenuDef): CommandResult {
  const name = valueText(call.named.get("value-name") ?? call.positional[menu.singleton ? 0 : 1] ?? "");
  const item = targets(call, router, menu)[0];
  if (!item) throw noSuchItem();
  const record = recordOf(menu, item, router);
  if (name === "") {
    const entries: ArrayEntry[] = [[".id", formatId(item.id)]];
    for (const key of Object.keys(record)) entries.push([key, typedValue(router, menu, item, record, key)]);
    return { value: arrayOf(entries) };
  }
  if (name === ".id") return { value: formatId(item.id) };
  if (!menu.properties[name] && !menu.virtual?.[name] && record[name] === undefined) {
    throw new RouterOsError("input does not match any value of value-name");
  }
  return { value: typedValue(router, menu, item, record, name) };
}

function typedValue(
  router: RouterState,
  menu: MenuDef,
  item: Item,
  record: Readonly<Record<string, string>>,
  name: string,
): RosValue {
  const def = menu.properties[name];
  const text = def ? showValue(def, stored(menu, item, name), router) : (record[name] ?? "");
  if (def?.type.kind === "bool" || record[name] === "true" || record[name] === "false") {
    return text === "yes" || text === "true";
  }
  if (def?.type.kind === "int" && text !== "") return Number(text);
  return text;
}

/**
 * Items a `find`/`print` keeps: the `where` clause and `name=value` filters, all on the record view. Every
 * named argument but those in `ignore` is a property (the router admitted only the verb's arguments).
 */
export function filtered(
  call: CommandCall,
  router: RouterState,
  menu: MenuDef,
  ignore: readonly string[],
): Item[] {
  const filters = [...call.named].filter(([name]) => !ignore.includes(name));
  return items(menu, router).filter((item) => {
    const record = recordOf(menu, item, router);
    if (call.where && !call.where(record)) return false;
    return filters.every(([name, value]) => matches(record, name, valueText(value)));
  });
}

function find(call: CommandCall, router: RouterState, menu: MenuDef): CommandResult {
  const found = filtered(call, router, menu, []);
  return { value: found.map((item): RosValue => formatId(item.id)) };
}

function move(call: CommandCall, router: RouterState, menu: MenuDef): CommandResult {
  if (!menu.ordered) throw badCommand("move");
  const moving = targets(call, router, menu);
  const destination = call.named.get("destination") ?? call.positional[1];
  const before = destination === undefined ? undefined : selectIn(menu, destination, router)[0]?.id;
  router.table(menu.table).move(
    moving.map((item) => item.id),
    before,
  );
  return {};
}

export const genericVerbs = {
  add,
  set,
  unset,
  remove,
  enable: setDisabled("no"),
  disable: setDisabled("yes"),
  comment,
  get,
  find,
  move,
} as const;

/** Verbs that change nothing, so the router skips recomputing derived items after them. */
export const readOnlyVerbs: ReadonlySet<string> = new Set(["get", "find", "print", "export"]);
