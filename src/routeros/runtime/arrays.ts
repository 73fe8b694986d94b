/**
 * Arrays with keys (`{"name"="wan";"mtu"=1500}`). A RouterOS array is one ordered collection: items without a
 * key (reached by position, `$a->0`) come first in the order written, then the items with a key in the order of
 * their keys, whatever order they were added in. Here an array is a JavaScript array of the values in that
 * order (so everything that reads a list reads a keyed array's values) and, when any item has a key, the keys
 * beside it in a hidden property. Arrays never change: `:set ($a->"k") v` builds the new array.
 */

import { RouterOsError } from "../errors.js";
import type { RosValue } from "../language/host.js";
import { INTEGER } from "../language/literal-word.js";

const KEYS = Symbol("routeros.array-keys");

type Keyed = readonly RosValue[] & { readonly [KEYS]?: readonly (string | undefined)[] };

export type ArrayEntry = readonly [key: string | undefined, value: RosValue];

/** The key of each item (undefined for an item reached by position), or undefined when no item has a key. */
export function keysOf(value: RosValue): readonly (string | undefined)[] | undefined {
  return Array.isArray(value) ? (value as Keyed)[KEYS] : undefined;
}

/** RouterOS orders keys as text, byte by byte (`"B"` before `"a"`). */
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * An array of `entries`: the unkeyed in their order, then the keyed by key; a key given twice keeps its last
 * value, as `{"a"=1;"a"=2}` holds `a=2`.
 */
export function arrayOf(entries: readonly ArrayEntry[]): readonly RosValue[] {
  const unkeyed: RosValue[] = [];
  const keyed = new Map<string, RosValue>();
  for (const [key, value] of entries) {
    if (key === undefined) unkeyed.push(value);
    else keyed.set(key, value);
  }
  if (keyed.size === 0) return unkeyed;
  const keys: (string | undefined)[] = unkeyed.map(() => undefined);
  const values = [...unkeyed];
  for (const key of [...keyed.keys()].sort(byKey)) {
    keys.push(key);
    values.push(keyed.get(key) ?? null);
  }
  Object.defineProperty(values, KEYS, { value: keys, enumerable: false });
  return values;
}

/** The items of an array with their keys; a value that is no array is one unkeyed item, nil none. */
export function entriesOf(value: RosValue): ArrayEntry[] {
  if (value === null) return [];
  if (!Array.isArray(value)) return [[undefined, value]];
  const keys = keysOf(value);
  return value.map((item, index) => [keys?.[index], item] as const);
}

/** Where `key` is in `array`: a number is a position among the unkeyed items, text a key (or a position). */
function indexOf(array: readonly RosValue[], key: RosValue): number | undefined {
  const keys = keysOf(array);
  if (typeof key === "string" && keys) {
    const found = keys.indexOf(key);
    if (found !== -1) return found;
  }
  const position =
    typeof key === "number" ? key : typeof key === "string" && INTEGER.test(key) ? Number(key) : NaN;
  if (!Number.isInteger(position) || position < 0 || position >= array.length) return undefined;
  return keys?.[position] === undefined ? position : undefined;
}

/** `$a->key`: the item under a key or at a position; nil when there is none or `array` is no array. */
export function itemOf(array: RosValue, key: RosValue): RosValue {
  if (!Array.isArray(array)) return null;
  const index = indexOf(array, key);
  return index === undefined ? null : (array[index] ?? null);
}

/**
 * `:set ($a->key) value`: the array with that item replaced; a new key is added in its place among the keys, a
 * position just past the unkeyed items appends one. A position further out fails, as RouterOS refuses it.
 */
export function withItem(array: RosValue, key: RosValue, value: RosValue): readonly RosValue[] {
  const entries = entriesOf(array);
  const index = Array.isArray(array) ? indexOf(array, key) : undefined;
  if (index !== undefined) {
    entries[index] = [entries[index]?.[0], value];
    return arrayOf(entries);
  }
  if (typeof key === "number") {
    const unkeyed = entries.filter(([k]) => k === undefined).length;
    if (!Number.isInteger(key) || key !== unkeyed)
      throw new RouterOsError(`invalid value for argument index (${key})`);
    entries.splice(unkeyed, 0, [undefined, value]);
    return arrayOf(entries);
  }
  return arrayOf([...entries, [keyText(key), value]]);
}

/** `:set ($a->k1->k2) value`: the item under `k2` of the array under `k1` replaced, and so on down. */
export function withPath(array: RosValue, keys: readonly RosValue[], value: RosValue): RosValue {
  const [first, ...rest] = keys;
  if (first === undefined) return value;
  return withItem(array, first, withPath(itemOf(array, first), rest, value));
}

/** A key as text: RouterOS keys are strings (`$a->$n` with a number `n` past the list names a key `"n"`). */
function keyText(key: RosValue): string {
  if (key === null) return "";
  if (Array.isArray(key)) throw new RouterOsError("invalid value for argument index (an array)");
  return String(key);
}

/** `($a, $b)`: the items of both, the keys of both (the right side's value wins a key both have). */
export function joinArrays(left: RosValue, right: RosValue): readonly RosValue[] {
  const asEntries = (value: RosValue): ArrayEntry[] =>
    Array.isArray(value) ? entriesOf(value) : [[undefined, value]];
  return arrayOf([...asEntries(left), ...asEntries(right)]);
}

/** Items of a slice of `array` (`:pick $a 1 3`), keeping the keys they had. */
export function sliceOf(array: readonly RosValue[], start: number, end: number): readonly RosValue[] {
  return arrayOf(entriesOf(array).slice(start, end));
}
