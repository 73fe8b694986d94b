/**
 * Value functions: `:len`, `:typeof`, `:tostr`, `:tonum`, `:pick`, `:toarray`, `:find`, `:totime`, `:tonsec`,
 * `:tocrlf`, `:tolf`, `:toip`, `:toip6`, `:tobool` (`:jobname` needs the run, the interpreter answers it).
 */

import type { FunctionName } from "../language/ast.js";
import type { RosValue } from "../language/host.js";
import { parseIp6 } from "./address-arithmetic.js";
import { keysOf, sliceOf } from "./arrays.js";
import { parseIp } from "./ipv4.js";
import { readRouterOsTime, sameValue, timeText, toNumber, toText, typeName } from "./values.js";

/** `:toarray`: an array stays, nil is empty, text splits at commas (`"a,b"` is `a;b`), anything else is one item. */
function toArray(value: RosValue): readonly RosValue[] {
  if (Array.isArray(value)) return value;
  if (value === null) return [];
  if (typeof value === "string") return value === "" ? [] : value.split(",");
  return [value as RosValue];
}

/**
 * `:find haystack needle [start]`: the position of a substring (or of an array item) found after `start`
 * (`:find "abc" "a" -1` is 0), nil when there is none.
 */
function find(haystack: RosValue, needle: RosValue, start: RosValue): RosValue {
  const from = start === null ? 0 : (toNumber(start) ?? -1) + 1;
  if (Array.isArray(haystack)) {
    // In an array with keys the answer is the item's key.
    const keys = keysOf(haystack);
    for (let index = Math.max(0, from); index < haystack.length; index++) {
      if (sameValue(haystack[index] ?? null, needle)) return keys?.[index] ?? index;
    }
    return null;
  }
  const index = toText(haystack).indexOf(toText(needle), Math.max(0, from));
  return index === -1 ? null : index;
}

/** `:tobool`: true and false as they are, `yes`/`true` and `no`/`false` as text, a number by being non-zero. */
function toBool(value: RosValue): RosValue {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0;
  const text = toText(value).trim().toLowerCase();
  if (text === "true" || text === "yes") return true;
  if (text === "false" || text === "no") return false;
  return null;
}

export function callFunction(name: FunctionName, args: readonly RosValue[]): RosValue {
  const [first = null, second = null, third = null] = args;
  switch (name) {
    case "len":
      return Array.isArray(first) ? first.length : toText(first).length;
    case "typeof":
      return typeName(first);
    case "tostr":
      return toText(first);
    case "tonum":
      return toNumber(first) ?? null;
    case "pick": {
      const start = toNumber(second) ?? 0;
      const end = third === null ? start + 1 : (toNumber(third) ?? start + 1);
      if (Array.isArray(first)) return third === null ? (first[start] ?? null) : sliceOf(first, start, end);
      return toText(first).slice(start, end);
    }
    case "toarray":
      return toArray(first);
    case "find":
      return find(first, second, third);
    case "totime": {
      const ms = readRouterOsTime(toText(first).trim());
      return ms === undefined ? null : timeText(ms);
    }
    case "tonsec": {
      const ms = readRouterOsTime(toText(first).trim());
      return ms === undefined ? null : ms * 1_000_000;
    }
    case "tocrlf":
      return toText(first).replace(/\r?\n/g, "\r\n");
    case "jobname":
      return "";
    case "toip": {
      const text = toText(first).trim();
      return parseIp(text) === undefined ? null : text;
    }
    case "toip6": {
      const text = toText(first).trim();
      return !text.includes("/") && parseIp6(text) !== undefined ? text.toLowerCase() : null;
    }
    case "tobool":
      return toBool(first);
    case "tolf":
      return toText(first).replace(/\r\n/g, "\n");
  }
}
