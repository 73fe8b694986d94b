/**
 * One packet through `/ip firewall raw` and `/ip firewall filter`, rule by rule in table order, as RouterOS
 * runs them: disabled rules skipped, `jump` into a chain and `return` out of it, the first terminal action
 * deciding, and a base chain's end accepting. A matcher the check cannot decide (a field of the packet it does
 * not know, or one it does not model: `limit`, `tcp-flags`, marks, IPsec) leaves the rule undecided: it is
 * listed, and read in the service's favour, so that the check names only cuts it is sure of.
 */
import type { RouterState } from "../schema.js";
import type { Item } from "../table.js";
import {
  addressIn,
  enabled,
  inAddressList,
  inInterfaceList,
  interfaceName,
  portIn,
  referenceName,
} from "./view.js";

export type ConnectionState = "new" | "established" | "untracked";

export interface Packet {
  readonly src?: string;
  readonly dst?: string;
  readonly protocol: "tcp";
  readonly srcPort?: number;
  readonly dstPort?: number;
  readonly inInterface?: string;
  readonly outInterface?: string;
  readonly state: ConnectionState;
}

export interface FirewallTable {
  /** The simulator's table key. */
  readonly table: string;
  /** The menu, as the report names it. */
  readonly menu: string;
}

export const FILTER: FirewallTable = { table: "firewall-filter", menu: "/ip firewall filter" };
export const RAW: FirewallTable = { table: "generic:ip firewall raw", menu: "/ip firewall raw" };

/** Properties of a rule that say what it does, not what it matches. */
const NOT_MATCHERS = new Set([
  "chain",
  "action",
  "jump-target",
  "log",
  "log-prefix",
  "comment",
  "disabled",
  "address-list",
  "address-list-timeout",
  "reject-with",
  "hw-offload",
]);

const CUTTING_ACTIONS: Readonly<Record<string, string>> = {
  drop: "drops",
  reject: "rejects",
  tarpit: "tarpits",
};

type Match = "yes" | "no" | "unknown";

const known = (value: boolean): Match => (value ? "yes" : "no");

function matcher(router: RouterState, name: string, value: string, packet: Packet): Match {
  switch (name) {
    case "src-address":
      return packet.src === undefined ? "unknown" : known(addressIn(packet.src, value));
    case "dst-address":
      return packet.dst === undefined ? "unknown" : known(addressIn(packet.dst, value));
    case "src-address-list":
      return packet.src === undefined ? "unknown" : known(inAddressList(router, value, packet.src));
    case "dst-address-list":
      return packet.dst === undefined ? "unknown" : known(inAddressList(router, value, packet.dst));
    case "protocol":
      return known(value === packet.protocol || value === "6");
    case "src-port":
      return packet.srcPort === undefined ? "unknown" : known(portIn(packet.srcPort, value));
    case "dst-port":
      return packet.dstPort === undefined ? "unknown" : known(portIn(packet.dstPort, value));
    case "port":
      if (packet.srcPort === undefined || packet.dstPort === undefined) return "unknown";
      return known(portIn(packet.srcPort, value) || portIn(packet.dstPort, value));
    case "in-interface":
      return packet.inInterface === undefined
        ? "unknown"
        : known(interfaceName(router, value) === packet.inInterface);
    case "out-interface":
      return packet.outInterface === undefined
        ? "unknown"
        : known(interfaceName(router, value) === packet.outInterface);
    case "in-interface-list":
      return packet.inInterface === undefined
        ? "unknown"
        : known(inInterfaceList(router, referenceName(router, "interface-list", value), packet.inInterface));
    case "out-interface-list":
      return packet.outInterface === undefined
        ? "unknown"
        : known(inInterfaceList(router, referenceName(router, "interface-list", value), packet.outInterface));
    case "connection-state":
      return known(value.split(",").includes(packet.state));
    case "connection-nat-state":
      // The service's connection is never NATed by the router it reaches.
      return "no";
    default:
      return "unknown";
  }
}

/** Whether the rule matches; its undecided matchers when it cannot tell. */
function ruleMatches(router: RouterState, rule: Item, packet: Packet): "yes" | "no" | readonly string[] {
  const unknown: string[] = [];
  for (const [name, stored] of Object.entries(rule.values)) {
    if (NOT_MATCHERS.has(name) || stored === "") continue;
    const negated = stored.startsWith("!");
    const result = matcher(router, name, negated ? stored.slice(1) : stored, packet);
    if (result === "unknown") unknown.push(name);
    else if ((result === "yes") === negated) return "no";
  }
  return unknown.length === 0 ? "yes" : unknown;
}

export interface RuleHit {
  readonly rule: Item;
  /** `rule 3 of chain input`: its place among the rules a packet in that chain meets. */
  readonly place: string;
  /** `/ip firewall filter number 5, "comment"`: where `print` shows it. */
  readonly where: string;
}

export interface ChainOutcome {
  readonly verdict: "accept" | "drop";
  /** The rule that decided, when one did (none: the chain ran to its end, which accepts). */
  readonly hit?: RuleHit;
  /** The packet as it leaves: `notrack` in raw makes it untracked for filter. */
  readonly packet: Packet;
  readonly undecided: readonly string[];
}

function describeRule(router: RouterState, firewall: FirewallTable, rule: Item): RuleHit {
  const items = router.table(firewall.table).items;
  const chain = rule.values.chain ?? "";
  const inChain = items
    .filter((item) => item.values.chain === chain)
    .findIndex((item) => item.id === rule.id);
  const comment = rule.values.comment ? `, "${rule.values.comment}"` : "";
  return {
    rule,
    place: `rule ${inChain + 1} of chain ${chain}`,
    where: `${firewall.menu} number ${items.indexOf(rule)}${comment}`,
  };
}

/** Runs `packet` through `chain` of `firewall`, following jumps. */
export function runChain(
  router: RouterState,
  firewall: FirewallTable,
  chain: string,
  packet: Packet,
): ChainOutcome {
  const undecided: string[] = [];
  let current = packet;
  const walk = (name: string, depth: number): { verdict: "accept" | "drop" | "return"; hit?: RuleHit } => {
    // RouterOS refuses jump loops; a bound keeps a configuration it would refuse from hanging the check.
    if (depth > 32) return { verdict: "return" };
    const rules = router.hasTable(firewall.table) ? router.table(firewall.table).items : [];
    for (const rule of rules) {
      if (rule.values.chain !== name || !enabled(rule)) continue;
      const match = ruleMatches(router, rule, current);
      if (match === "no") continue;
      const action = rule.values.action ?? "accept";
      const hit = describeRule(router, firewall, rule);
      if (match !== "yes") {
        undecided.push(`${hit.place} (${hit.where}) matches on ${match.join(", ")}`);
        // Undecided rules are read in the service's favour: an accept that may match accepts, a jump that
        // may be taken counts only if it accepts, anything else is passed by. A cut is then a sure one.
        if (action === "accept") return { verdict: "accept", hit };
        if (action === "jump") {
          const inner = walk(rule.values["jump-target"] ?? "", depth + 1);
          if (inner.verdict === "accept") return inner;
        }
        continue;
      }
      if (action === "accept") return { verdict: "accept", hit };
      if (CUTTING_ACTIONS[action]) return { verdict: "drop", hit };
      if (action === "return") return { verdict: "return" };
      if (action === "notrack") current = { ...current, state: "untracked" };
      if (action === "jump") {
        const inner = walk(rule.values["jump-target"] ?? "", depth + 1);
        if (inner.verdict !== "return") return inner;
      }
      // log, passthrough, add-*-to-address-list, fasttrack-connection: the packet goes on down the chain.
    }
    return { verdict: "return" };
  };
  const outcome = walk(chain, 0);
  return {
    verdict: outcome.verdict === "drop" ? "drop" : "accept",
    ...(outcome.hit ? { hit: outcome.hit } : {}),
    packet: current,
    undecided,
  };
}

/** `rule 3 of chain input drops 10.0.0.5 to tcp/8729 (/ip firewall filter number 5)`. */
export function cutSentence(hit: RuleHit, what: string): string {
  const verb = CUTTING_ACTIONS[hit.rule.values.action ?? ""] ?? "drops";
  return `${hit.place} ${verb} ${what} (${hit.where})`;
}
