/**
 * Dynamic items the router derives from its addresses: one connected route per address, and ARP entries
 * for simulated neighbours on each configured subnet. Neighbours come from a hash of the router's seed and
 * the subnet, so the same configuration always shows the same neighbours, whatever the order of changes.
 */

import { formatIp, networkOf, networkPrefix, parsePrefix } from "../runtime/ipv4.js";
import { formatId } from "./convert.js";
import { anyInterface } from "./menus/targets.js";
import { hash32, macFrom } from "./random.js";
import type { RouterState } from "./schema.js";

/** Changes to these tables can change derived items; others skip the recomputation. */
export const sourceTables: ReadonlySet<string> = new Set(["ip-address", "interface"]);
/** Tables holding derived items: reading one brings it up to date first. */
export const derivedTables: ReadonlySet<string> = new Set(["ip-arp", "ip-route"]);

interface Wanted {
  readonly key: string;
  readonly values: Record<string, string>;
}

function activeAddresses(router: RouterState) {
  const result: { address: number; length: number; interfaceId: number; interfaceName: string }[] = [];
  for (const item of router.table("ip-address").items) {
    const prefix = parsePrefix(item.values.address ?? "");
    const interfaceId = Number.parseInt((item.values.interface ?? "").slice(1), 16);
    const owner = router.table("interface").get(interfaceId);
    if (!prefix || !owner || item.values.disabled === "yes" || owner.values.disabled === "yes") continue;
    const interfaceName = router.nameOf(anyInterface, interfaceId) ?? "";
    result.push({ ...prefix, interfaceId, interfaceName });
  }
  return result;
}

function neighbours(router: RouterState): Wanted[] {
  const wanted: Wanted[] = [];
  for (const a of activeAddresses(router)) {
    const hosts = 2 ** (32 - a.length) - 2;
    if (hosts < 2) continue;
    const network = networkOf(a);
    const count = 1 + (hash32(router.seedText, network, a.length) % 3);
    const seen = new Set<number>([a.address]);
    for (let i = 0; i < count; i++) {
      const host = network + 1 + (hash32(router.seedText, network, i) % hosts);
      if (seen.has(host)) continue;
      seen.add(host);
      const address = formatIp(host);
      wanted.push({
        key: `${address}|${a.interfaceId}`,
        values: {
          address,
          "mac-address": macFrom(router.seedText, address),
          interface: formatId(a.interfaceId),
        },
      });
    }
  }
  return wanted;
}

function connectedRoutes(router: RouterState): Wanted[] {
  return activeAddresses(router).map((a) => {
    const dst = networkPrefix(a);
    return {
      key: `${dst}|${a.interfaceName}`,
      values: {
        "dst-address": dst,
        gateway: a.interfaceName,
        distance: "0",
        "pref-src": formatIp(a.address),
      },
    };
  });
}

/** Brings the dynamic items of `table` to `wanted`, keeping the ids of those that stay. */
function reconcile(
  router: RouterState,
  table: string,
  wanted: readonly Wanted[],
  keyOf: (v: Record<string, string>) => string,
) {
  const store = router.table(table);
  const keys = new Set(wanted.map((w) => w.key));
  const present = new Set<string>();
  for (const item of [...store.items]) {
    if (!item.dynamic) continue;
    const key = keyOf(item.values);
    if (keys.has(key) && !present.has(key)) present.add(key);
    else store.remove(item.id);
  }
  for (const w of wanted) {
    if (!present.has(w.key)) store.insert(w.values, { dynamic: true });
    present.add(w.key);
  }
}

export function refreshDerived(router: RouterState): void {
  reconcile(
    router,
    "ip-arp",
    neighbours(router),
    (v) => `${v.address}|${Number.parseInt((v.interface ?? "").slice(1), 16)}`,
  );
  reconcile(router, "ip-route", connectedRoutes(router), (v) => `${v["dst-address"]}|${v.gateway}`);
}
