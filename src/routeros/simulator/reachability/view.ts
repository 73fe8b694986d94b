/**
 * Reading a router's configuration the way the reachability check needs it: enabled items, references by
 * name, addresses and interface lists. Every reader takes the router as `RouterState`, so the same code reads a
 * plan's twin and a simulated router behind the service.
 */
import { networkOf, parseIp, parsePrefix } from "../../runtime/ipv4.js";
import { parseId } from "../convert.js";
import type { RouterState } from "../schema.js";
import type { Item } from "../table.js";

export const INTERFACE = { table: "interface" } as const;
const INTERFACE_LIST = { table: "interface-list" } as const;

export const enabled = (item: Item): boolean => item.values.disabled !== "yes";

export function enabledItems(router: RouterState, table: string): readonly Item[] {
  return router.hasTable(table) ? router.table(table).items.filter(enabled) : [];
}

/** The name a stored reference (`*7`) stands for; the text itself when it is no reference. */
export function referenceName(router: RouterState, table: string, stored: string): string {
  const id = parseId(stored);
  return id === undefined ? stored : (router.nameOf({ table }, id) ?? stored);
}

export function interfaceNamed(router: RouterState, name: string): Item | undefined {
  return router.table(INTERFACE.table).items.find((item) => item.values.name === name);
}

export const interfaceName = (router: RouterState, stored: string): string =>
  referenceName(router, INTERFACE.table, stored);

/** The address part of `10.0.0.1/24`. */
export const addressPart = (text: string): string => text.split("/")[0] ?? text;

/**
 * Whether `address` lies in `spec`: a prefix, a bare address or a range (`10.0.0.1-10.0.0.9`), as firewall
 * matchers, address lists and `/ip service address=` take them. A DNS name never matches: the check does not
 * resolve names.
 */
export function addressIn(address: string, spec: string): boolean {
  const value = parseIp(address);
  if (value === undefined) return false;
  const range = spec.split("-");
  if (range.length === 2) {
    const [from, to] = range.map((part) => parseIp(part));
    return from !== undefined && to !== undefined && value >= from && value <= to;
  }
  const prefix = parsePrefix(spec);
  if (!prefix) return false;
  return networkOf({ address: value, length: prefix.length }) === networkOf(prefix);
}

/** Whether `address` is in the firewall address list `list` (enabled entries). */
export function inAddressList(router: RouterState, list: string, address: string): boolean {
  return enabledItems(router, "firewall-address-list").some(
    (entry) => entry.values.list === list && addressIn(address, entry.values.address ?? ""),
  );
}

/** Whether the interface `name` is in the interface list `listName`: members, built-in lists, include/exclude. */
export function inInterfaceList(router: RouterState, listName: string, name: string, depth = 0): boolean {
  if (depth > 8) return false;
  const list = router.table(INTERFACE_LIST.table).items.find((item) => item.values.name === listName);
  if (!list) return false;
  const builtin = list.values.builtin === "yes";
  // Every interface the simulator holds is static; none is dynamic.
  if (builtin) return listName === "all" || listName === "static";
  const listNames = (stored: string | undefined) =>
    (stored ?? "")
      .split(",")
      .filter((part) => part !== "")
      .map((part) => referenceName(router, INTERFACE_LIST.table, part));
  const member = enabledItems(router, "interface-list-member").some(
    (entry) =>
      referenceName(router, INTERFACE_LIST.table, entry.values.list ?? "") === listName &&
      interfaceName(router, entry.values.interface ?? "") === name,
  );
  const included = listNames(list.values.include).some((inner) =>
    inInterfaceList(router, inner, name, depth + 1),
  );
  const excluded = listNames(list.values.exclude).some((inner) =>
    inInterfaceList(router, inner, name, depth + 1),
  );
  return (member || included) && !excluded;
}

/** Whether the port `port` is in a firewall port list (`22,80,8000-8080`). */
export function portIn(port: number, spec: string): boolean {
  return spec.split(",").some((part) => {
    const [low, high] = part.split("-").map(Number);
    if (low === undefined || Number.isNaN(low)) return false;
    return high === undefined ? port === low : port >= low && port <= high;
  });
}

/** A route's `gateway=`: an address, an interface, or `address%interface`. */
export function parseGateway(text: string): { readonly address?: string; readonly interface?: string } {
  const [address = "", via] = text.split("%");
  if (via !== undefined) return { interface: via };
  return parseIp(address) === undefined ? (address === "" ? {} : { interface: address }) : { address };
}
