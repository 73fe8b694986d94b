/**
 * `:environment print`: the global variables, one `name=value` line each, as RouterOS writes them: text in
 * quotes, numbers and booleans bare, arrays as `{"a"; 1}`. What RouterOS shows for nil and for code is not
 * documented; the simulated router writes nothing after `=` for nil and `(code)` for a function.
 */

import { RosCode } from "../language/code-value.js";
import type { RosValue } from "../language/host.js";
import { quoteString } from "../language/quote.js";
import type { Cell } from "./scope.js";

function written(value: RosValue): string {
  if (value === null) return "";
  if (Array.isArray(value)) return `{${value.map(written).join("; ")}}`;
  if (value instanceof RosCode) return "(code)";
  if (typeof value === "string") return quoteString(value);
  return String(value);
}

export function environmentLines(globals: ReadonlyMap<string, Cell>): string[] {
  return [...globals].map(([name, cell]) => `${name}=${cell.code ? "(code)" : written(cell.value)}`);
}
