/**
 * `/ip service`: the router's API (and REST, SSH) listens only where its service is enabled, on the port it
 * names, and takes connections only from the prefixes of its `address=` (empty: from anywhere).
 */
import type { RouterState } from "../schema.js";
import { addressIn } from "./view.js";

/** RouterOS's own ports for the services a transport can use. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  "api-ssl": 8729,
  api: 8728,
  "www-ssl": 443,
  www: 80,
  ssh: 22,
};

/** The service the path's port belongs to, read before the change: the one listening there, else by default port. */
export function serviceAt(router: RouterState, port: number): string | undefined {
  const items = router.table("ip-service").items;
  const listening = items.find((item) => item.values.name !== undefined && item.values.port === String(port));
  if (listening?.values.name && DEFAULT_PORTS[listening.values.name] !== undefined)
    return listening.values.name;
  return Object.entries(DEFAULT_PORTS).find(([, standard]) => standard === port)?.[0];
}

/** Why the service `name` does not take the service's connection to `port` from `source`, or undefined. */
export function serviceCut(
  router: RouterState,
  name: string,
  port: number,
  source?: string,
): string | undefined {
  const item = router.table("ip-service").items.find((entry) => entry.values.name === name);
  if (!item) return undefined;
  if (item.values.disabled === "yes") return `/ip service ${name} is disabled`;
  const listening = item.values.port ?? String(DEFAULT_PORTS[name] ?? port);
  if (listening !== String(port)) return `/ip service ${name} listens on tcp/${listening}, not tcp/${port}`;
  const allowed = (item.values.address ?? "").split(",").filter((part) => part !== "");
  if (source !== undefined && allowed.length > 0 && !allowed.some((prefix) => addressIn(source, prefix)))
    return `/ip service ${name} takes connections only from ${allowed.join(",")}, not from ${source}`;
  return undefined;
}
