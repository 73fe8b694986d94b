/**
 * `:environment print`: the global variables, one `name=value` line each, as RouterOS writes them: text in
 * quotes, numbers and booleans bare, arrays as `{"a"; 1}`, with keys as `{name="wan"; mtu=1500}`. What RouterOS shows for nil and for code is not
 * documented; the simulated router writes nothing after `=` for nil and `(code)` for a function.
 */

import { RosCode } from "../language/code-value.js";
import type { RosValue } from "../language/host.js";
import { quoteString } from "../language/quote.js";
import { keysOf } from "./arrays.js";
import type { Cell } from "./scope.js";

function written(value: RosValue): string {
  if (value === null) return "";
  if (Array.isArray(value)) {
    const keys = keysOf(value);
    const key = (index: number) => {
      const name = keys?.[index];
      if (name === undefined) return "";
      return `${/^[A-Za-z0-9_.-]+$/.test(name) ? name : quoteString(name)}=`;
    };
    return `{${value.map((item, index) => key(index) + written(item)).join("; ")}}`;
  }
  if (value instanceof RosCode) return "(code)";
  if (typeof value === "string") return quoteString(value);
  return String(value);
}

export function environmentLines(globals: ReadonlyMap<string, Cell>): string[] {
  return [...globals].map(([name, cell]) => `${name}=${cell.code ? "(code)" : written(cell.value)}`);
}
