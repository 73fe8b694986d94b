/**
 * The reachability check: whether the service still reaches a router after a change. The path is resolved on
 * the configuration before the change (which address the service connects to, on which interface, which
 * `/ip service` answers there), then followed on a configuration: address and interface, raw prerouting,
 * filter input, the service, the route back; or, for a router that connects out, the route, raw and filter
 * output, and the replies coming back in.
 */
import type { RouterState } from "../schema.js";
import {
  type ConnectionState,
  cutSentence,
  FILTER,
  type FirewallTable,
  type Packet,
  RAW,
  runChain,
} from "./firewall.js";
import { addressCut, interfaceCut, type ManagementAddress, managementAddress } from "./interfaces.js";
import { describePacket, type ServicePath } from "./path.js";
import { routeTo } from "./routes.js";
import { serviceAt, serviceCut } from "./services.js";

/** A path with what the configuration before the change says about it. */
export interface ResolvedPath {
  readonly path: ServicePath;
  readonly management?: ManagementAddress;
  /** The `/ip service` listening on the path's port (inbound). */
  readonly service?: string;
}

export function resolvePath(before: RouterState, path: ServicePath): ResolvedPath {
  if (path.direction === "outbound") return { path };
  const management = managementAddress(before, path.destination);
  const service = serviceAt(before, path.port);
  return { path, ...(management ? { management } : {}), ...(service ? { service } : {}) };
}

/** `10.0.0.5 to 192.168.88.1 tcp/8729 (api-ssl, on bridge)`: the path as the report shows it. */
export function describePath(resolved: ResolvedPath): string {
  const { path, management, service } = resolved;
  if (path.direction === "outbound")
    return `the router to ${path.destination ?? "the service"} ${path.protocol}/${path.port} (it connects out)`;
  const to = management ? `${management.address} ` : "";
  const notes = [
    service,
    management?.interface ? `on ${management.interface}` : undefined,
    path.ingressPort ? `via ${path.ingressPort}` : undefined,
  ].filter((note) => note !== undefined);
  return `${path.source ?? "the service"} to ${to}${path.protocol}/${path.port}${notes.length > 0 ? ` (${notes.join(", ")})` : ""}`;
}

export type Reachability =
  | { readonly reachable: true; readonly undecided: readonly string[] }
  | { readonly reachable: false; readonly reason: string; readonly undecided: readonly string[] };

interface Step {
  readonly firewall: FirewallTable;
  readonly chain: string;
}

/** Runs the packet through the chains in order; the sentence of the first rule that drops it. */
function throughFirewall(
  router: RouterState,
  steps: readonly Step[],
  start: Packet,
  what: string,
  undecided: string[],
): { readonly cut?: string; readonly packet: Packet } {
  let packet = start;
  for (const step of steps) {
    const outcome = runChain(router, step.firewall, step.chain, packet);
    undecided.push(...outcome.undecided);
    packet = outcome.packet;
    if (outcome.verdict === "drop" && outcome.hit) return { cut: cutSentence(outcome.hit, what), packet };
  }
  return { packet };
}

function inboundReach(
  router: RouterState,
  resolved: ResolvedPath,
  path: ServicePath & { direction: "inbound" },
): Reachability {
  const undecided: string[] = [];
  const cut = (reason: string): Reachability => ({ reachable: false, reason, undecided });
  let inInterface: string | undefined;
  if (resolved.management) {
    const held = addressCut(router, resolved.management);
    if ("cut" in held) return cut(held.cut);
    const down = interfaceCut(router, held.interface, path.ingressPort);
    if (down) return cut(down);
    inInterface = held.interface;
  }
  const state: ConnectionState = "new";
  const packet: Packet = {
    ...(path.source === undefined ? {} : { src: path.source }),
    ...(resolved.management ? { dst: resolved.management.address } : {}),
    protocol: path.protocol,
    dstPort: path.port,
    ...(inInterface === undefined ? {} : { inInterface }),
    state,
  };
  const what = describePacket(path.source, path.protocol, path.port);
  const firewall = throughFirewall(
    router,
    [
      { firewall: RAW, chain: "prerouting" },
      { firewall: FILTER, chain: "input" },
    ],
    packet,
    what,
    undecided,
  );
  if (firewall.cut) return cut(firewall.cut);
  if (resolved.service) {
    const refused = serviceCut(router, resolved.service, path.port, path.source);
    if (refused) return cut(refused);
  }
  // Routing is read only where addressing is: a router with no management address has no route either.
  if (path.source !== undefined && resolved.management) {
    const back = routeTo(router, path.source);
    if ("cut" in back) return cut(`${back.cut}: its replies to ${path.source} cannot leave`);
  }
  return { reachable: true, undecided };
}

function outboundReach(router: RouterState, path: ServicePath & { direction: "outbound" }): Reachability {
  const undecided: string[] = [];
  const cut = (reason: string): Reachability => ({ reachable: false, reason, undecided });
  const route = routeTo(router, path.destination);
  if ("cut" in route) return cut(route.cut);
  const out = throughFirewall(
    router,
    [
      { firewall: RAW, chain: "output" },
      { firewall: FILTER, chain: "output" },
    ],
    {
      ...(path.destination === undefined ? {} : { dst: path.destination }),
      protocol: path.protocol,
      dstPort: path.port,
      outInterface: route.interface,
      state: "new",
    },
    `the router's connection to ${path.destination ?? "the service"} on ${path.protocol}/${path.port}`,
    undecided,
  );
  if (out.cut) return cut(out.cut);
  const back = throughFirewall(
    router,
    [
      { firewall: RAW, chain: "prerouting" },
      { firewall: FILTER, chain: "input" },
    ],
    {
      ...(path.destination === undefined ? {} : { src: path.destination }),
      protocol: path.protocol,
      srcPort: path.port,
      inInterface: route.interface,
      state: out.packet.state === "untracked" ? "untracked" : "established",
    },
    `the service's replies from ${path.protocol}/${path.port}`,
    undecided,
  );
  if (back.cut) return cut(back.cut);
  return { reachable: true, undecided };
}

/** Whether the service reaches `router` along `resolved`, on the router's configuration as it is. */
export function checkReachability(router: RouterState, resolved: ResolvedPath): Reachability {
  const { path } = resolved;
  return path.direction === "inbound" ? inboundReach(router, resolved, path) : outboundReach(router, path);
}

/**
 * What a change does to the path: kept, cut (the rule or setting named), or not known: the configuration
 * before the change already fails the check, so the model does not describe how the service gets in, and a
 * cut after it would say nothing.
 */
export type ChangeReachability =
  | { readonly status: "kept"; readonly path: string; readonly undecided: readonly string[] }
  | {
      readonly status: "cut";
      readonly path: string;
      readonly reason: string;
      readonly undecided: readonly string[];
    }
  | { readonly status: "unknown"; readonly path: string; readonly reason: string };

export function checkChange(before: RouterState, after: RouterState, path: ServicePath): ChangeReachability {
  const resolved = resolvePath(before, path);
  const described = describePath(resolved);
  const was = checkReachability(before, resolved);
  if (!was.reachable)
    return {
      status: "unknown",
      path: described,
      reason: `the check finds the path cut before the change already (${was.reason}); give the service's address and the router's with --service-address and --router-address`,
    };
  const now = checkReachability(after, resolved);
  return now.reachable
    ? { status: "kept", path: described, undecided: now.undecided }
    : { status: "cut", path: described, reason: now.reason, undecided: now.undecided };
}
