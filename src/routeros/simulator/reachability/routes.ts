/**
 * Whether the router can send to an address: a connected network on an interface that is up, or an enabled
 * route (static, or the default route a DHCP client adds) whose gateway it can reach. Routing beyond the
 * router is not modelled: a gateway that is reachable is taken to deliver.
 */
import { parsePrefix } from "../../runtime/ipv4.js";
import type { RouterState } from "../schema.js";
import { interfaceCut } from "./interfaces.js";
import { addressIn, enabledItems, interfaceName, parseGateway } from "./view.js";

/** The interface traffic to `address` leaves by; undefined `address`: any address beyond the router. */
export function routeTo(
  router: RouterState,
  address: string | undefined,
): { readonly interface: string } | { readonly cut: string } {
  const up = (name: string) => interfaceCut(router, name) === undefined;
  const connected = (target: string) =>
    enabledItems(router, "ip-address")
      .map((item) => ({
        prefix: item.values.address ?? "",
        name: interfaceName(router, item.values.interface ?? ""),
      }))
      .find(({ prefix, name }) => addressIn(target, prefix) && up(name))?.name;
  if (address !== undefined) {
    const direct = connected(address);
    if (direct) return { interface: direct };
  }
  const routes = enabledItems(router, "ip-route")
    .filter((item) => item.dynamic !== true && item.values.blackhole !== "yes")
    .filter((item) => {
      const destination = item.values["dst-address"] ?? "0.0.0.0/0";
      return address === undefined ? destination === "0.0.0.0/0" : addressIn(address, destination);
    })
    .sort(
      (a, b) =>
        (parsePrefix(b.values["dst-address"] ?? "0.0.0.0/0")?.length ?? 0) -
        (parsePrefix(a.values["dst-address"] ?? "0.0.0.0/0")?.length ?? 0),
    );
  for (const route of routes) {
    const gateway = parseGateway(route.values.gateway ?? "");
    const via =
      gateway.interface !== undefined
        ? up(gateway.interface)
          ? gateway.interface
          : undefined
        : gateway.address !== undefined
          ? connected(gateway.address)
          : undefined;
    if (via) return { interface: via };
  }
  // A DHCP client adds a default route through its interface unless told not to.
  const dhcp = enabledItems(router, "generic:ip dhcp-client")
    .filter((item) => item.values["add-default-route"] !== "no")
    .map((item) => interfaceName(router, item.values.interface ?? ""))
    .find(up);
  if (dhcp) return { interface: dhcp };
  return { cut: `the router has no route to ${address ?? "addresses beyond its own networks"}` };
}
