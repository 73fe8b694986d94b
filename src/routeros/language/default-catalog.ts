import type { CommandCatalog } from "./host.js";

/**
 * Verbs the permissive catalog knows. Without a real catalog the parser cannot tell `/ip address` (menus) from
 * `add` (a verb), so it treats every lower-case word as a menu until one of these words.
 */
export const COMMON_VERBS: ReadonlySet<string> = new Set([
  "add",
  "set",
  "remove",
  "print",
  "export",
  "enable",
  "disable",
  "find",
  "move",
  "get",
  "edit",
  "comment",
  "reset",
  "reboot",
  "shutdown",
  "save",
  "load",
  "run",
  "monitor",
]);

const MENU_WORD = /^[a-z0-9][a-z0-9-]*$/;

/**
 * The catalog used when the caller has none: any lower-case word (`[a-z0-9-]`) that is not a common verb is a
 * menu, every common verb is a command of every menu, and every command takes every argument. Misspelled menus
 * and arguments therefore pass (`/ip adress print`, `add adress=...`); only a real catalog (the simulated
 * router's) rejects them.
 */
export const permissiveCatalog: CommandCatalog = {
  isMenu: (path) => {
    const last = path[path.length - 1];
    return last === undefined || (MENU_WORD.test(last) && !COMMON_VERBS.has(last));
  },
  hasCommand: (_path, verb) => COMMON_VERBS.has(verb),
  hasArgument: () => true,
};
