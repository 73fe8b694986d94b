/**
 * `/ip firewall filter|nat|mangle|address-list`. Rule order is evaluated top to bottom, so these tables take
 * `move` and `place-before`. Matchers are shared by the three rule tables; each adds its own actions.
 */
import { RouterOsError } from "../../errors.js";
import { bool, commonProps, type MenuDef, oneOf, type PropDef, str } from "../schema.js";
import { anyInterface, interfaceList } from "./targets.js";

const negatable = (type: PropDef["type"], list = false): PropDef => ({ type, negatable: true, list });
const ports = negatable({ kind: "ports" });
const address = negatable({ kind: "ip-match" });

const matchers: Record<string, PropDef> = {
  "src-address": address,
  "dst-address": address,
  protocol: negatable({ kind: "string" }),
  "src-port": ports,
  "dst-port": ports,
  "in-interface": negatable({ kind: "ref", target: anyInterface }),
  "out-interface": negatable({ kind: "ref", target: anyInterface }),
  "in-interface-list": negatable({ kind: "ref", target: interfaceList }),
  "out-interface-list": negatable({ kind: "ref", target: interfaceList }),
  "src-address-list": negatable({ kind: "string" }),
  "dst-address-list": negatable({ kind: "string" }),
  "connection-state": negatable(
    { kind: "enum", values: ["established", "invalid", "new", "related", "untracked"] },
    true,
  ),
  "connection-nat-state": negatable({ kind: "enum", values: ["dstnat", "srcnat"] }, true),
  "connection-mark": negatable({ kind: "string" }),
  "ipsec-policy": str(),
  "icmp-options": str(),
  "tcp-flags": str(),
  limit: str(),
  "jump-target": str(),
  log: bool("no"),
  "log-prefix": str(),
  "address-list": str(),
  "address-list-timeout": str("none-dynamic"),
  ...commonProps,
};

const common = [
  "accept",
  "add-dst-to-address-list",
  "add-src-to-address-list",
  "jump",
  "log",
  "passthrough",
  "return",
];

/** A jump needs a target chain; RouterOS refuses the rule without it. */
function completeRule(values: Record<string, string>) {
  if (values.action === "jump" && (values["jump-target"] ?? "") === "") {
    throw new RouterOsError("missing value(s) of argument(s) jump-target");
  }
}

function rules(
  name: string,
  actions: readonly string[],
  extra: Record<string, PropDef>,
  more: Pick<MenuDef, "shownWhen"> = {},
): MenuDef {
  return {
    ...more,
    path: ["ip", "firewall", name],
    table: `firewall-${name}`,
    ordered: true,
    sparsePrint: ["chain", "action"],
    // What a RouterOS 7 rule gives over the API and REST whatever was written (read from real replies).
    apiAlways: ["log", "log-prefix", "bytes", "packets"],
    complete: completeRule,
    properties: {
      chain: { type: { kind: "string" }, required: true },
      // RouterOS's export writes the action even when it is the default.
      action: { ...oneOf([...common, ...actions].sort(), "accept"), exportAlways: true },
      ...extra,
      ...matchers,
      // No traffic passes through the simulated router: its counters stay at zero.
      bytes: { type: { kind: "int", min: 0, max: Number.MAX_SAFE_INTEGER }, default: "0", readOnly: true },
      packets: { type: { kind: "int", min: 0, max: Number.MAX_SAFE_INTEGER }, default: "0", readOnly: true },
    },
  };
}

export const firewallMenus: readonly MenuDef[] = [
  {
    path: ["ip", "firewall", "address-list"],
    table: "firewall-address-list",
    columns: ["list", "address", "timeout"],
    unique: [{ keys: ["list", "address"], error: "failure: already have such entry" }],
    properties: {
      list: { type: { kind: "string" }, required: true },
      address: { type: { kind: "host" }, required: true },
      timeout: { type: { kind: "time" } },
      ...commonProps,
    },
  },
  rules("filter", ["drop", "fasttrack-connection", "reject", "tarpit"], {
    "reject-with": oneOf([
      "icmp-admin-prohibited",
      "icmp-host-prohibited",
      "icmp-host-unreachable",
      "icmp-net-prohibited",
      "icmp-network-unreachable",
      "icmp-port-unreachable",
      "icmp-protocol-unreachable",
      "tcp-reset",
    ]),
    "hw-offload": bool("no"),
  }),
  rules(
    "nat",
    ["dst-nat", "endpoint-independent-nat", "masquerade", "netmap", "redirect", "same", "src-nat"],
    {
      "to-addresses": { type: { kind: "ip-match" } },
      "to-ports": { type: { kind: "ports" } },
    },
  ),
  rules(
    "mangle",
    [
      "change-dscp",
      "change-mss",
      "change-ttl",
      "clear-df",
      "drop",
      "mark-connection",
      "mark-packet",
      "mark-routing",
      "route",
      "set-priority",
      "sniff-pc",
      "sniff-tzsp",
      "strip-ipv4-options",
    ],
    {
      // `set-priority`: a number 0..63, or the priority a field of the packet carries.
      "new-priority": str(),
      "new-connection-mark": str(),
      "new-packet-mark": str(),
      "new-routing-mark": str(),
      passthrough: bool("yes"),
    },
    // RouterOS shows passthrough beside the actions that take it (marks, changes), not on every rule.
    { shownWhen: { passthrough: (values) => /^(mark|change)-/.test(values.action ?? "") } },
  ),
];
