/**
 * RouterOS's default configuration (defconf) of each kind of board, as the commands its script leaves behind:
 * what `/export` of a factory-fresh RouterOS 7.24 router lists with `comment=defconf`. The router applies
 * them through its own verbs (see `SimulatedRouter.applyDefaults`), so they are checked as any command is.
 * The defconf script itself also waits for interfaces and sets the radios' SSIDs; see docs/routeros.md for what
 * the simulator leaves out.
 */
import type { RouterModel } from "./types.js";

export interface DefaultCommand {
  /** The menu, space-separated: `ip firewall filter`. */
  readonly path: string;
  readonly verb: "add" | "set";
  readonly args: Readonly<Record<string, string>>;
}

const LAN_ADDRESS = "192.168.88.1/24";

const add = (path: string, args: Record<string, string>): DefaultCommand => ({ path, verb: "add", args });
const set = (path: string, args: Record<string, string>): DefaultCommand => ({ path, verb: "set", args });
const defconf = (text: string) => (text === "" ? "defconf" : `defconf: ${text}`);

/** The bridge `bridge` with a fixed MAC (its first ethernet port's), as defconf makes it. */
function bridge(ports: readonly string[], macOf: (port: string) => string): DefaultCommand[] {
  const firstEthernet = ports.find((port) => port.startsWith("ether") || port.startsWith("sfp")) ?? "";
  return [
    add("interface bridge", {
      name: "bridge",
      comment: defconf(""),
      "admin-mac": macOf(firstEthernet),
      "auto-mac": "no",
    }),
    ...ports.map((port) =>
      add("interface bridge port", { bridge: "bridge", interface: port, comment: "defconf" }),
    ),
  ];
}

const ipv4Filter: readonly Record<string, string>[] = [
  {
    chain: "input",
    action: "accept",
    "connection-state": "established,related,untracked",
    comment: "accept established,related,untracked",
  },
  { chain: "input", action: "drop", "connection-state": "invalid", comment: "drop invalid" },
  { chain: "input", action: "accept", protocol: "icmp", comment: "accept ICMP" },
  {
    chain: "input",
    action: "accept",
    "dst-address": "127.0.0.1",
    comment: "accept to local loopback (for CAPsMAN)",
  },
  { chain: "input", action: "drop", "in-interface-list": "!LAN", comment: "drop all not coming from LAN" },
  { chain: "forward", action: "accept", "ipsec-policy": "in,ipsec", comment: "accept in ipsec policy" },
  { chain: "forward", action: "accept", "ipsec-policy": "out,ipsec", comment: "accept out ipsec policy" },
  {
    chain: "forward",
    action: "fasttrack-connection",
    "connection-state": "established,related",
    comment: "fasttrack",
  },
  {
    chain: "forward",
    action: "accept",
    "connection-state": "established,related,untracked",
    comment: "accept established,related, untracked",
  },
  { chain: "forward", action: "drop", "connection-state": "invalid", comment: "drop invalid" },
  {
    chain: "forward",
    action: "drop",
    "connection-state": "new",
    "connection-nat-state": "!dstnat",
    "in-interface-list": "WAN",
    comment: "drop all from WAN not DSTNATed",
  },
];

const badIpv6: readonly [string, string][] = [
  ["::/128", "unspecified address"],
  ["::1/128", "lo"],
  ["fec0::/10", "site-local"],
  ["::ffff:0.0.0.0/96", "ipv4-mapped"],
  ["::/96", "ipv4 compat"],
  ["100::/64", "discard only "],
  ["2001:db8::/32", "documentation"],
  ["2001:10::/28", "ORCHID"],
  ["3ffe::/16", "6bone"],
];

const ipv6Filter: readonly Record<string, string>[] = [
  {
    chain: "input",
    action: "accept",
    "connection-state": "established,related,untracked",
    comment: "accept established,related,untracked",
  },
  { chain: "input", action: "drop", "connection-state": "invalid", comment: "drop invalid" },
  { chain: "input", action: "accept", protocol: "icmpv6", comment: "accept ICMPv6" },
  {
    chain: "input",
    action: "accept",
    protocol: "udp",
    "dst-port": "33434-33534",
    comment: "accept UDP traceroute",
  },
  {
    chain: "input",
    action: "accept",
    protocol: "udp",
    "dst-port": "546",
    "src-address": "fe80::/10",
    comment: "accept DHCPv6-Client prefix delegation.",
  },
  { chain: "input", action: "accept", protocol: "udp", "dst-port": "500,4500", comment: "accept IKE" },
  { chain: "input", action: "accept", protocol: "ipsec-ah", comment: "accept ipsec AH" },
  { chain: "input", action: "accept", protocol: "ipsec-esp", comment: "accept ipsec ESP" },
  {
    chain: "input",
    action: "accept",
    "ipsec-policy": "in,ipsec",
    comment: "accept all that matches ipsec policy",
  },
  {
    chain: "input",
    action: "drop",
    "in-interface-list": "!LAN",
    comment: "drop everything else not coming from LAN",
  },
  {
    chain: "forward",
    action: "accept",
    "connection-state": "established,related,untracked",
    comment: "accept established,related,untracked",
  },
  { chain: "forward", action: "drop", "connection-state": "invalid", comment: "drop invalid" },
  {
    chain: "forward",
    action: "drop",
    "src-address-list": "bad_ipv6",
    comment: "drop packets with bad src ipv6",
  },
  {
    chain: "forward",
    action: "drop",
    "dst-address-list": "bad_ipv6",
    comment: "drop packets with bad dst ipv6",
  },
  {
    chain: "forward",
    action: "drop",
    protocol: "icmpv6",
    "hop-limit": "equal:1",
    comment: "rfc4890 drop hop-limit=1",
  },
  { chain: "forward", action: "accept", protocol: "icmpv6", comment: "accept ICMPv6" },
  { chain: "forward", action: "accept", protocol: "139", comment: "accept HIP" },
  { chain: "forward", action: "accept", protocol: "udp", "dst-port": "500,4500", comment: "accept IKE" },
  { chain: "forward", action: "accept", protocol: "ipsec-ah", comment: "accept ipsec AH" },
  { chain: "forward", action: "accept", protocol: "ipsec-esp", comment: "accept ipsec ESP" },
  {
    chain: "forward",
    action: "accept",
    "ipsec-policy": "in,ipsec",
    comment: "accept all that matches ipsec policy",
  },
  {
    chain: "forward",
    action: "drop",
    "in-interface-list": "!LAN",
    comment: "drop everything else not coming in from LAN",
  },
];

const rule = (path: string) => (values: Record<string, string>) =>
  add(path, { ...values, comment: defconf(values.comment ?? "") });

/** Home and office routers: ether1 is the WAN port, everything else is the LAN bridge. */
function routerMode(model: RouterModel, macOf: (port: string) => string): DefaultCommand[] {
  const wan = "ether1";
  const lan = model.ports.map((port) => port.name).filter((name) => name !== wan);
  return [
    ...bridge(lan, macOf),
    add("interface list", { name: "WAN", comment: "defconf" }),
    add("interface list", { name: "LAN", comment: "defconf" }),
    add("interface list member", { list: "LAN", interface: "bridge", comment: "defconf" }),
    add("interface list member", { list: "WAN", interface: wan, comment: "defconf" }),
    set("ip neighbor discovery-settings", { "discover-interface-list": "LAN" }),
    add("ip pool", { name: "default-dhcp", ranges: "192.168.88.10-192.168.88.254" }),
    add("ip dhcp-server", {
      name: "defconf",
      interface: "bridge",
      "address-pool": "default-dhcp",
      "lease-time": "10m",
    }),
    add("ip address", { address: LAN_ADDRESS, interface: "bridge", comment: "defconf" }),
    add("ip dhcp-server network", {
      address: "192.168.88.0/24",
      gateway: "192.168.88.1",
      "dns-server": "192.168.88.1",
      comment: "defconf",
    }),
    add("ip dhcp-client", { interface: wan, comment: "defconf" }),
    set("ip dns", { "allow-remote-requests": "yes" }),
    add("ip dns static", { name: "router.lan", address: "192.168.88.1", comment: "defconf" }),
    ...ipv4Filter.map(rule("ip firewall filter")),
    add("ip firewall nat", {
      chain: "srcnat",
      action: "masquerade",
      "out-interface-list": "WAN",
      "ipsec-policy": "out,none",
      comment: defconf("masquerade"),
    }),
    ...badIpv6.map(([address, text]) =>
      add("ipv6 firewall address-list", { list: "bad_ipv6", address, comment: defconf(text) }),
    ),
    ...ipv6Filter.map(rule("ipv6 firewall filter")),
    set("tool mac-server", { "allowed-interface-list": "LAN" }),
    set("tool mac-server mac-winbox", { "allowed-interface-list": "LAN" }),
  ];
}

/** The commands of the model's defconf, in the order its script runs them; none for CHR. */
export function defaultCommands(
  model: RouterModel,
  macOf: (port: string) => string,
): readonly DefaultCommand[] {
  switch (model.defaultConfiguration) {
    case "none":
      return [];
    case "router":
      return routerMode(model, macOf);
    case "switch":
      return [
        ...bridge(
          model.ports.map((port) => port.name),
          macOf,
        ),
        add("ip address", { address: LAN_ADDRESS, interface: "bridge", comment: "defconf" }),
      ];
    case "ip-only":
      return [add("ip address", { address: LAN_ADDRESS, interface: "ether1", comment: "defconf" })];
  }
}
