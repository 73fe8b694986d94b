/**
 * The named arguments of each command, as the RouterOS console knows them: a menu's properties (stored and
 * computed), plus each verb's own (`numbers`, `place-before`, `proplist`, the flag `detail`, the keyword
 * `where`). The parser rejects a script naming any other before it runs a line; the router rejects a command
 * that reaches it another way (the API view) with the same text.
 */
import { printOptions } from "./print.js";
import type { MenuDef } from "./schema.js";

/** `export`'s own arguments. The simulator writes one text whatever they say (there are no files or secrets). */
export const exportArguments: readonly string[] = [
  "compact",
  "file",
  "hide-sensitive",
  "show-sensitive",
  "terse",
  "verbose",
];

/** The arguments `verb` takes in `menu`; empty for a verb the menu does not have. */
export function argumentsOf(menu: MenuDef, verb: string): readonly string[] {
  const custom = menu.verbs?.[verb];
  if (custom) return custom.arguments;
  const computed = Object.keys(menu.virtual ?? {});
  const properties = Object.entries(menu.properties);
  const written = [...computed, ...properties.filter(([, def]) => !def.readOnly).map(([name]) => name)];
  const shown = [".id", ...computed, ...properties.map(([name]) => name)];
  // A singleton has one item, so its verbs name none.
  const numbers = menu.singleton ? [] : ["numbers"];
  switch (verb) {
    case "add":
      return [...written, "copy-from", ...(menu.ordered ? ["place-before"] : [])];
    case "set":
      return [...numbers, ...written];
    case "get":
    case "unset":
      return [...numbers, "value-name"];
    case "comment":
      return [...numbers, "comment"];
    case "move":
      return [...numbers, "destination"];
    case "find":
      return ["where", ...shown];
    case "print":
      return ["where", ...printOptions, ...shown];
    case "export":
      return exportArguments;
    case "remove":
    case "enable":
    case "disable":
      return numbers;
    default:
      return [];
  }
}
