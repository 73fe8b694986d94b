/**
 * How `plan` learns the service's path to each router (docs/safe-change.md): the mode, the service's address
 * as the routers see it, and per router the address and port it connects to and the port it comes in on. What
 * is not given is learned from the router's configuration before the change, or left undecided.
 */
import { UsageError } from "../../errors.js";
import { parseIp } from "../../routeros/runtime/ipv4.js";
import {
  DEFAULT_API_PORT,
  DEFAULT_OUTBOUND_PORT,
  type ServicePath,
} from "../../routeros/simulator/reachability/index.js";

export const REACH_MODES = ["inbound", "outbound", "off"] as const;
export type ReachMode = (typeof REACH_MODES)[number];

export interface RouterAddress {
  readonly address: string;
  readonly port?: number;
  readonly ingressPort?: string;
}

export interface ReachSettings {
  /** @default "inbound": the service connects to the router's API */
  readonly mode?: ReachMode;
  /** The service's address as the routers see it. @default - not known: rules on it stay undecided */
  readonly serviceAddress?: string;
  /** By router id. @default - each router's management address, learned from its configuration */
  readonly routers?: ReadonlyMap<string, RouterAddress>;
  /** The port the service connects to where a router's entry names none. @default 8729 (API-SSL) */
  readonly port?: number;
}

export function parseReachMode(text: string, name: string): ReachMode {
  const mode = REACH_MODES.find((candidate) => candidate === text);
  if (!mode)
    throw new UsageError(`${name} must be one of ${REACH_MODES.join(", ")} (got ${JSON.stringify(text)})`);
  return mode;
}

export function parseAddress(text: string, name: string): string {
  if (parseIp(text) === undefined)
    throw new UsageError(`${name} must be an IPv4 address such as 10.0.0.5 (got ${JSON.stringify(text)})`);
  return text;
}

export function parsePort(text: string, name: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65535))
    throw new UsageError(`${name} must be a port, 1 to 65535 (got ${JSON.stringify(text)})`);
  return port;
}

/** `<router>=<address>[:<port>][@<interface>]`: `edge-1=10.0.0.1:8729@ether2`. */
export function parseRouterAddress(text: string, name: string): [router: string, address: RouterAddress] {
  const match = /^([^=]+)=([^:@]+)(?::([^@]*))?(?:@(.+))?$/.exec(text);
  if (!match?.[1] || !match[2])
    throw new UsageError(
      `${name} must be <router>=<address>[:<port>][@<interface>], such as edge-1=10.0.0.1:8729@ether2 (got ${JSON.stringify(text)})`,
    );
  const address = parseAddress(match[2], `${name} ${match[1]}`);
  return [
    match[1],
    {
      address,
      ...(match[3] === undefined ? {} : { port: parsePort(match[3], `${name} ${match[1]}'s port`) }),
      ...(match[4] === undefined ? {} : { ingressPort: match[4] }),
    },
  ];
}

/** The path to check for each router; undefined with mode `off`. */
export function reachFor(settings: ReachSettings): ((routerId: string) => ServicePath) | undefined {
  const mode = settings.mode ?? "inbound";
  if (mode === "off") return undefined;
  if (mode === "outbound")
    return () => ({ direction: "outbound", protocol: "tcp", port: settings.port ?? DEFAULT_OUTBOUND_PORT });
  return (routerId) => {
    const router = settings.routers?.get(routerId);
    return {
      direction: "inbound",
      protocol: "tcp",
      port: router?.port ?? settings.port ?? DEFAULT_API_PORT,
      ...(settings.serviceAddress === undefined ? {} : { source: settings.serviceAddress }),
      ...(router ? { destination: router.address } : {}),
      ...(router?.ingressPort === undefined ? {} : { ingressPort: router.ingressPort }),
    };
  };
}
