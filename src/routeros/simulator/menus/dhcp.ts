/** `/ip dhcp-server` with its `network` and `lease` tables. */

import { networkPrefix, parsePrefix } from "../../runtime/ipv4.js";
import { bool, commonProps, int, type MenuDef, oneOf, type PropDef, ref, str } from "../schema.js";
import { anyInterface, dhcpServer, ipPool } from "./targets.js";

const ipList: PropDef = { type: { kind: "ip" }, list: true };

export const dhcpMenus: readonly MenuDef[] = [
  {
    path: ["ip", "dhcp-server"],
    table: "dhcp-server",
    key: "name",
    autoName: "dhcp",
    columns: ["name", "interface", "address-pool", "lease-time"],
    unique: [{ keys: ["name"], error: "failure: already have server with such name" }],
    properties: {
      name: { type: { kind: "string" }, required: true },
      interface: ref(anyInterface, { required: true }),
      "address-pool": {
        type: { kind: "ref", target: ipPool, also: ["static-only"] },
        default: "static-only",
      },
      "lease-time": { type: { kind: "time" }, default: "30m" },
      authoritative: oneOf(["after-10sec-delay", "after-2sec-delay", "no", "yes"], "yes"),
      "add-arp": bool("no"),
      "lease-script": str(),
      ...commonProps,
    },
  },
  {
    path: ["ip", "dhcp-server", "network"],
    table: "dhcp-network",
    columns: ["address", "gateway", "dns-server"],
    unique: [{ keys: ["address"], error: "failure: already have such entry" }],
    // RouterOS stores the network address of what was written (10.0.0.1/24 -> 10.0.0.0/24).
    complete: (values) => {
      const prefix = parsePrefix(values.address ?? "");
      if (prefix) values.address = networkPrefix(prefix);
    },
    properties: {
      address: { type: { kind: "ip-prefix" }, required: true },
      gateway: ipList,
      "dns-server": ipList,
      "ntp-server": ipList,
      domain: str(),
      netmask: int(0, 32),
      comment: commonProps.comment,
    },
  },
  {
    path: ["ip", "dhcp-server", "lease"],
    table: "dhcp-lease",
    columns: ["address", "mac-address", "server"],
    unique: [
      { keys: ["mac-address", "server"], error: "failure: already have static lease for this MAC address" },
    ],
    properties: {
      address: { type: { kind: "ip" }, required: true },
      "mac-address": { type: { kind: "mac" }, required: true },
      server: { type: { kind: "ref", target: dhcpServer, also: ["all"] }, default: "all" },
      "client-id": str(),
      "lease-time": { type: { kind: "time" }, default: "0s" },
      ...commonProps,
    },
  },
];
