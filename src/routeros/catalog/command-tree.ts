/**
 * The command trees a script can be checked against, one per RouterOS version the project has a catalog of
 * (today only 7.24), as `CommandCatalog`s for the parser. Kept apart from the simulated router's catalog
 * (`src/routeros/simulator/catalog.ts`): this one knows what RouterOS takes, not what the simulator implements, and it
 * imports nothing of the simulator, so the constructs can use it.
 *
 * The 7.24 tree was read from a router without hardware or extra packages, so real scripts use a few names it
 * lacks. Those are listed below and accepted, because a false alarm at synth time blocks a correct
 * configuration, while a miss only leaves the mistake for the router to report.
 */

import { COMMON_VERBS } from "../language/default-catalog.js";
import type { CommandCatalog } from "../language/host.js";
import { routerOsCatalog } from "./index.js";

export const DEFAULT_ROUTEROS_VERSION = "7.24";

/** `7.24`, `6.49.10`, `7.25beta2`, `7.20rc1`: what RouterOS prints as its version. */
const VERSION = /^(\d+)\.(\d+)(?:\.\d+)?(?:(?:beta|rc)\d+)?$/;

export function isRouterOsVersion(version: string): boolean {
  return VERSION.test(version);
}

/**
 * Menus of packages and hardware the tree has no data for (`/system routerboard` exists only on RouterBOARDs,
 * `/iot` only with its package). Below them, every word is accepted, as by the permissive catalog.
 */
export const UNCHECKED_MENUS: readonly (readonly string[])[] = [
  ["system", "routerboard"],
  ["interface", "ethernet", "switch"],
  ["zerotier"],
  ["iot"],
  ["lora"],
  ["gps"],
  ["user-manager"],
  ["interface", "wifiwave2"],
];

/**
 * Arguments that exports of real routers write and the tree lacks (hardware offload exists only where the
 * switch chip has it), by menu; they count for every command of that menu.
 */
export const EXTRA_ARGUMENTS: ReadonlyMap<string, readonly string[]> = new Map([
  ["ip firewall filter", ["hw-offload"]],
  ["ip firewall nat", ["connection-state", "connection-nat-state", "tcp-flags"]],
  ["ip route", ["suppress-hw-offload"]],
]);

/**
 * Read-only properties that `find` selects items by (`set [ find default-name=ether1 ] ...`): the tree lists
 * only `where` for `find`, but RouterOS takes every property of the menu there.
 */
const READ_ONLY_SELECTORS = [
  "default",
  "default-name",
  "dynamic",
  "builtin",
  "invalid",
  "running",
  "inactive",
];

/** A tree a script is checked against, and the version asked for when that version has no tree. */
export interface CommandTree {
  /** The RouterOS version of the tree, e.g. `7.24`. */
  readonly version: string;
  readonly catalog: CommandCatalog;
  /** The version that was asked for and has no tree of its own; absent when the tree is that version's. */
  readonly fallbackFrom?: string;
}

const isUnchecked = (path: readonly string[]) =>
  UNCHECKED_MENUS.some(
    (prefix) => prefix.length <= path.length && prefix.every((word, i) => path[i] === word),
  );
const MENU_WORD = /^[a-z0-9][a-z0-9-]*$/;

function catalog724(): CommandCatalog {
  const ros = routerOsCatalog();
  const findArguments = new Map<string, readonly string[]>();
  const key = (path: readonly string[]) => path.join(" ");
  const extras = (path: readonly string[]) => EXTRA_ARGUMENTS.get(key(path)) ?? [];
  // `find` takes every property of its menu: the arguments of all its commands and the read-only ones.
  const ofFind = (path: readonly string[]): readonly string[] => {
    let names = findArguments.get(key(path));
    if (names === undefined) {
      const all = (ros.commandsOf(path) ?? []).flatMap((verb) => ros.argumentsOf(path, verb) ?? []);
      names = [...new Set([...all, ...READ_ONLY_SELECTORS])];
      findArguments.set(key(path), names);
    }
    return names;
  };
  // Asked for every argument of every command: kept as sets, built on first use.
  const argumentSets = new Map<string, ReadonlySet<string> | undefined>();
  const argumentsOf = (path: readonly string[], verb: string): ReadonlySet<string> | undefined => {
    const id = `${key(path)}/${verb}`;
    if (!argumentSets.has(id)) {
      const own = ros.argumentsOf(path, verb);
      argumentSets.set(
        id,
        own === undefined ? undefined : new Set([...(verb === "find" ? ofFind(path) : own), ...extras(path)]),
      );
    }
    return argumentSets.get(id);
  };
  return {
    isMenu: (path) => {
      if (ros.isMenu(path)) return true;
      const last = path[path.length - 1] ?? "";
      return isUnchecked(path) && MENU_WORD.test(last) && !COMMON_VERBS.has(last);
    },
    hasCommand: (path, verb) =>
      ros.argumentsOf(path, verb) !== undefined || (isUnchecked(path) && COMMON_VERBS.has(verb)),
    hasArgument: (path, verb, name) =>
      (isUnchecked(path) && !ros.isMenu(path)) || (argumentsOf(path, verb)?.has(name) ?? false),
    namesAt: (path) => ros.namesAt(path),
    argumentsOf: (path, verb) => [...(argumentsOf(path, verb) ?? [])],
  };
}

let tree724: CommandTree | undefined;

/**
 * The tree for `version` (`7.24`, or a patch release of it: `7.24.1`), or the 7.24 tree with `fallbackFrom`
 * set when the project has none for that version. Built on first use; the catalog is parsed then.
 */
export function commandTreeFor(version: string = DEFAULT_ROUTEROS_VERSION): CommandTree {
  tree724 ??= { version: "7.24", catalog: catalog724() };
  const [, major, minor] = VERSION.exec(version) ?? [];
  return `${major}.${minor}` === tree724.version && !/beta|rc/.test(version)
    ? tree724
    : { ...tree724, fallbackFrom: version };
}
