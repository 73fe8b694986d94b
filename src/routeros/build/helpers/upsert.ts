import { type BuildValue, buildCommand } from "../builder.js";

export type Properties = Readonly<Record<string, BuildValue | undefined>>;

/**
 * Adds the item that `key` selects when the router has none, else sets `properties` on the items it has: one
 * `:if` line, so the same script can run any number of times and converge on the same configuration (a plain
 * `add` fails the second time with `failure: already have such ...`). An existing item keeps its position,
 * which matters for firewall rules. Properties left undefined are not touched, and items no longer declared
 * are not removed: removal belongs in a destroy script.
 */
export function upsert(
  menu: readonly string[],
  key: Readonly<Record<string, BuildValue>>,
  properties: Properties,
): string {
  const add = buildCommand(menu, "add", { ...key, ...properties });
  const condition = `:if ([:len [${buildCommand(menu, "find", key)}]] = 0) do={ ${add} }`;
  const hasProperties = Object.values(properties).some((value) => value !== undefined);
  return hasProperties
    ? `${condition} else={ ${buildCommand(menu, "set", properties, { find: key })} }`
    : condition;
}

/** Removes the items that `key` selects; nothing happens when there are none. For destroy scripts. */
export function removeWhere(menu: readonly string[], key: Readonly<Record<string, BuildValue>>): string {
  return buildCommand(menu, "remove", {}, { find: key });
}

/** Drops the given keys from a property record (they went into the selecting key instead). */
export function without<T extends object, K extends keyof T>(record: T, ...keys: K[]): Omit<T, K> {
  const copy = { ...record };
  for (const key of keys) delete copy[key];
  return copy;
}
