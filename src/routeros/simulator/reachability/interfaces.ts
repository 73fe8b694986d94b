/**
 * The layers below the firewall on the service's way in: the management address, the interface holding it,
 * a VLAN's parent, and a bridge's ports and VLAN table (with `vlan-filtering=yes` a bridge passes a VLAN to
 * the router only where `/interface bridge vlan` says so).
 */
import type { RouterState } from "../schema.js";
import type { Item } from "../table.js";
import { addressIn, addressPart, enabled, enabledItems, interfaceName, interfaceNamed } from "./view.js";

export interface ManagementAddress {
  /** The router's address the service connects to (no prefix length). */
  readonly address: string;
  /** The interface holding it before the change; undefined when no address of the router is it. */
  readonly interface?: string;
}

function defaultGateway(router: RouterState): string | undefined {
  const route = enabledItems(router, "ip-route").find(
    (item) => (item.values["dst-address"] ?? "0.0.0.0/0") === "0.0.0.0/0" && item.dynamic !== true,
  );
  return route?.values.gateway?.split("%")[0];
}

/**
 * The address the service connects to, read on the configuration before the change: the one given, else the
 * first address on the uplink (the interface whose network holds the default route's gateway), else the
 * router's first address; undefined for a router without addresses.
 */
export function managementAddress(router: RouterState, given?: string): ManagementAddress | undefined {
  const addresses = enabledItems(router, "ip-address");
  const holding = (address: string) =>
    addresses.find((item) => addressPart(item.values.address ?? "") === address);
  const described = (item: Item | undefined, address: string): ManagementAddress => {
    const name = item ? interfaceName(router, item.values.interface ?? "") : undefined;
    return { address, ...(name === undefined ? {} : { interface: name }) };
  };
  if (given !== undefined) return described(holding(given), given);
  const gateway = defaultGateway(router);
  const uplink =
    gateway === undefined
      ? undefined
      : addresses.find((item) => addressIn(gateway, item.values.address ?? ""));
  const chosen = uplink ?? addresses[0];
  return chosen ? described(chosen, addressPart(chosen.values.address ?? "")) : undefined;
}

const listHas = (stored: string | undefined, router: RouterState, name: string) =>
  (stored ?? "")
    .split(",")
    .filter((part) => part !== "")
    .some((part) => interfaceName(router, part) === name);

function bridgeCut(
  router: RouterState,
  bridge: Item,
  vlanId?: string,
  ingressPort?: string,
): string | undefined {
  const name = bridge.values.name ?? "";
  const ports = enabledItems(router, "bridge-port").filter(
    (port) => interfaceName(router, port.values.bridge ?? "") === name,
  );
  const portNamed = (port: string) =>
    ports.find((item) => interfaceName(router, item.values.interface ?? "") === port);
  let ingress: Item | undefined;
  if (ingressPort !== undefined) {
    ingress = portNamed(ingressPort);
    if (!ingress)
      return `${ingressPort}, the port the service comes in on, is no longer an enabled port of bridge ${name}`;
    if (interfaceNamed(router, ingressPort)?.values.disabled === "yes")
      return `interface ${ingressPort} is disabled`;
  } else if (
    !ports.some(
      (port) =>
        interfaceNamed(router, interfaceName(router, port.values.interface ?? ""))?.values.disabled !== "yes",
    )
  ) {
    return `bridge ${name} has no enabled port left`;
  }
  if (bridge.values["vlan-filtering"] !== "yes") return undefined;
  const entries = enabledItems(router, "bridge-vlan").filter(
    (entry) => interfaceName(router, entry.values.bridge ?? "") === name,
  );
  if (vlanId !== undefined) {
    const carrying = entries.filter((entry) => (entry.values["vlan-ids"] ?? "").split(",").includes(vlanId));
    if (!carrying.some((entry) => listHas(entry.values.tagged, router, name)))
      return `bridge ${name} filters VLANs and no /interface bridge vlan entry passes vlan ${vlanId} to the router (tagged=${name})`;
    if (
      ingressPort !== undefined &&
      !carrying.some((entry) => listHas(entry.values.tagged, router, ingressPort)) &&
      (ingress?.values.pvid ?? "1") !== vlanId
    )
      return `bridge ${name} filters VLANs and port ${ingressPort} carries no vlan ${vlanId}`;
    return undefined;
  }
  const bridgePvid = bridge.values.pvid ?? "1";
  if (ingressPort !== undefined && (ingress?.values.pvid ?? "1") !== bridgePvid)
    return `bridge ${name} filters VLANs and port ${ingressPort} has pvid ${ingress?.values.pvid ?? "1"}, the bridge's own pvid ${bridgePvid}`;
  return undefined;
}

/**
 * Why traffic arriving for the interface `name` cannot reach the router, or undefined when it can: the
 * interface gone or disabled, a VLAN's parent down, a bridge without the port the service uses.
 */
export function interfaceCut(
  router: RouterState,
  name: string,
  ingressPort?: string,
  vlanId?: string,
  depth = 0,
): string | undefined {
  const item = interfaceNamed(router, name);
  if (!item) return `interface ${name} is gone`;
  if (!enabled(item)) return `interface ${name} is disabled`;
  if (depth > 8) return undefined;
  if (item.values.type === "vlan") {
    const parent = interfaceName(router, item.values.interface ?? "");
    return interfaceCut(router, parent, ingressPort, item.values["vlan-id"], depth + 1);
  }
  if (item.values.type === "bridge") return bridgeCut(router, item, vlanId, ingressPort);
  if (ingressPort !== undefined && ingressPort !== name && vlanId === undefined)
    return `the service comes in on ${ingressPort}, and the management address is on ${name}`;
  return undefined;
}

/** The interface holding `address` now, or why the router no longer answers at it. */
export function addressCut(
  router: RouterState,
  management: ManagementAddress,
): { readonly interface: string } | { readonly cut: string } {
  const all = router.hasTable("ip-address") ? router.table("ip-address").items : [];
  const holding = all.filter((item) => addressPart(item.values.address ?? "") === management.address);
  const active = holding.find(enabled);
  const was = management.interface === undefined ? "" : ` (it was on ${management.interface})`;
  if (!active)
    return {
      cut:
        holding.length > 0
          ? `/ip address ${management.address} is disabled${was}`
          : `${management.address} is no longer an address of the router${was}`,
    };
  const now = interfaceName(router, active.values.interface ?? "");
  if (management.interface !== undefined && now !== management.interface)
    return { cut: `/ip address ${management.address} moved from ${management.interface} to ${now}` };
  return { interface: now };
}
