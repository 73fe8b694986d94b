/** Value functions: `:len`, `:typeof`, `:tostr`, `:tonum`, `:pick`. */
import type { FunctionName } from "./ast.js";
import type { RosValue } from "./host.js";
import { toNumber, toText, typeName } from "./values.js";

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
      if (Array.isArray(first)) return third === null ? (first[start] ?? null) : first.slice(start, end);
      return toText(first).slice(start, end);
    }
  }
}
