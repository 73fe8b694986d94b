/**
 * `/ip address`, `/ip arp`, `/ip route`, `/ip dns` (+ `static`), `/ip pool`, `/ip service`. ARP neighbours
 * and connected routes are dynamic items the router derives from addresses (see `derived.ts`).
 */
import { RouterOsError } from "../../errors.js";
import { formatIp, networkOf, parseIp, parsePrefix } from "../../runtime/ipv4.js";
import type { Flag } from "../schema.js";
import { bool, commonProps, int, kib, type MenuDef, oneOf, type PropDef, ref, str } from "../schema.js";
import { anyInterface, ipPool } from "./targets.js";

const ip: PropDef = { type: { kind: "ip" } };
const time = (fallback: string): PropDef => ({ type: { kind: "time" }, default: fallback });

const dynamic: Flag = { letter: "D", name: "dynamic", test: (item) => item.dynamic === true };

const services: readonly [string, number, boolean][] = [
  ["telnet", 23, false],
  ["ftp", 21, false],
  ["www", 80, false],
  ["ssh", 22, false],
  ["www-ssl", 443, true],
  ["api", 8728, false],
  ["winbox", 8291, false],
  ["api-ssl", 8729, false],
];

export const ipMenus: readonly MenuDef[] = [
  {
    path: ["ip", "pool"],
    table: "ip-pool",
    key: "name",
    autoName: "pool",
    columns: ["name", "ranges"],
    unique: [{ keys: ["name"], error: "failure: pool with such name already exists" }],
    properties: {
      name: { type: { kind: "string" }, required: true },
      ranges: { type: { kind: "ip-match" }, list: true, required: true },
      "next-pool": ref(ipPool),
      comment: commonProps.comment,
    },
  },
  {
    path: ["ip", "address"],
    table: "ip-address",
    columns: ["address", "network", "interface"],
    unique: [{ keys: ["address", "interface"], error: "failure: already have such address" }],
    // RouterOS fills `network` from the address and keeps it in sync; export still lists it. The address
    // works on the interface it names (no bonding or bridge master in between here).
    complete: (values) => {
      const prefix = parsePrefix(values.address ?? "");
      if (prefix) values.network = formatIp(networkOf(prefix));
      if (values.interface !== undefined) values["actual-interface"] = values.interface;
    },
    properties: {
      address: { type: { kind: "ip-prefix" }, required: true },
      network: ip,
      interface: ref(anyInterface, { required: true }),
      "actual-interface": ref(anyInterface, { readOnly: true }),
      ...commonProps,
    },
  },
  {
    path: ["ip", "arp"],
    table: "ip-arp",
    columns: ["address", "mac-address", "interface"],
    unique: [{ keys: ["address", "interface"], error: "failure: already have such entry" }],
    flags: [
      { letter: "I", name: "invalid", test: () => false },
      { letter: "H", name: "DHCP", test: () => false },
      dynamic,
      { letter: "C", name: "complete", test: (item) => (item.values["mac-address"] ?? "") !== "" },
    ],
    properties: {
      address: { ...ip, required: true },
      "mac-address": { type: { kind: "mac" } },
      interface: ref(anyInterface, { required: true }),
      published: bool("no"),
      ...commonProps,
    },
  },
  {
    path: ["ip", "route"],
    table: "ip-route",
    columns: ["dst-address", "gateway", "distance"],
    flags: [
      dynamic,
      { letter: "A", name: "active", test: (item) => item.values.disabled !== "yes" },
      { letter: "c", name: "connect", test: (item) => item.dynamic === true },
      { letter: "s", name: "static", test: (item) => item.dynamic !== true },
    ],
    complete: (values, router) => {
      const gateway = values.gateway ?? "";
      const viaInterface = gateway.split("%")[1] ?? gateway;
      if (
        gateway !== "" &&
        parseIp(gateway.split("%")[0] ?? "") === undefined &&
        !router.resolve(anyInterface, viaInterface)
      ) {
        throw new RouterOsError("invalid value for argument gateway");
      }
    },
    // RouterOS v7's export writes these even at their defaults: `add disabled=no distance=1 dst-address=...`.
    properties: {
      "dst-address": { type: { kind: "ip-prefix" }, default: "0.0.0.0/0", exportAlways: true },
      gateway: str(),
      distance: { ...int(0, 255, 1), exportAlways: true },
      "routing-table": { ...str("main"), exportAlways: true },
      scope: { ...int(0, 255, 30), exportAlways: true },
      "target-scope": { ...int(0, 255, 10), exportAlways: true },
      "pref-src": ip,
      "check-gateway": oneOf(["arp", "bfd", "ping", "none"]),
      // A flag RouterOS prints only on a blackhole route (unset otherwise, as Ansible's api_modify expects).
      blackhole: { type: { kind: "bool" } },
      // Exports of RouterOS 7.x before 7.24 carry it; 7.24 dropped the argument. Taken, kept, not exported.
      "suppress-hw-offload": bool("no"),
      comment: commonProps.comment,
      disabled: { ...commonProps.disabled, exportAlways: true },
    },
  },
  {
    path: ["ip", "dns"],
    table: "ip-dns",
    singleton: true,
    properties: {
      servers: { type: { kind: "ip46" }, list: true },
      "allow-remote-requests": bool("no"),
      "cache-size": kib(64, 4_294_967_295, 2048),
      "cache-max-ttl": time("1w"),
      "max-udp-packet-size": int(50, 65507, 4096),
      "use-doh-server": str(),
    },
  },
  {
    path: ["ip", "dns", "static"],
    table: "ip-dns-static",
    columns: ["name", "type", "address", "ttl"],
    complete: (values) => {
      if ((values.name ?? "") === "" && (values.regexp ?? "") === "") {
        throw new RouterOsError("missing value(s) of argument(s) name");
      }
    },
    properties: {
      name: str(),
      regexp: str(),
      type: oneOf(["A", "AAAA", "CNAME", "FWD", "MX", "NS", "NXDOMAIN", "SRV", "TXT"], "A"),
      // An AAAA record holds an IPv6 address.
      address: { type: { kind: "ip46" } },
      cname: str(),
      "forward-to": str(),
      text: str(),
      ttl: time("1d"),
      ...commonProps,
    },
  },
  {
    path: ["ip", "service"],
    table: "ip-service",
    key: "name",
    canAdd: false,
    canRemove: false,
    columns: ["name", "port", "address"],
    builtins: () =>
      services.map(([name, port, disabled]) => ({
        name,
        port: String(port),
        disabled: disabled ? "yes" : "no",
      })),
    properties: {
      name: { type: { kind: "string" }, readOnly: true },
      port: int(1, 65535),
      address: { type: { kind: "ip-prefix" }, list: true },
      certificate: str("none"),
      vrf: str("main"),
      "max-sessions": int(1, 1000, 20),
      disabled: commonProps.disabled,
    },
  },
];
