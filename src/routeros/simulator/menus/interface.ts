/**
 * `/interface` and its typed views. Ethernet, bridge and VLAN interfaces live in one table (shared ids, one
 * name space, as on RouterOS); each view shows the items of its `type`. The model's ethernet ports are built in.
 */
import { ethernetPorts, switchChips } from "../models/hardware.js";
import { macFrom } from "../random.js";
import { bool, commonProps, int, type MenuDef, oneOf, type PropDef, ref, str } from "../schema.js";
import { anyInterface, bridgeInterface, interfaceList } from "./targets.js";

const nameTaken = { keys: ["name"], error: "failure: already have interface with such name" };
const running = {
  letter: "R",
  name: "running",
  test: (item: { values: Record<string, string> }) => item.values.disabled !== "yes",
};
const interfaceFlags = [{ letter: "D", name: "dynamic", test: () => false }, running];
const arp = oneOf(["disabled", "enabled", "local-proxy-arp", "proxy-arp", "reply-only"], "enabled");
const readOnly = (fallback?: string): PropDef => ({
  type: { kind: "string" },
  readOnly: true,
  default: fallback,
});
const name: PropDef = { type: { kind: "string" }, required: true };
const counters = [
  "rx-byte",
  "tx-byte",
  "rx-packet",
  "tx-packet",
  "rx-drop",
  "tx-drop",
  "rx-error",
  "tx-error",
];

export const interfaceMenus: readonly MenuDef[] = [
  {
    path: ["interface"],
    table: "interface",
    key: "name",
    canAdd: false,
    exported: false,
    columns: ["name", "type", "mtu", "l2mtu", "mac-address"],
    flags: interfaceFlags,
    unique: [nameTaken],
    properties: {
      name,
      "default-name": readOnly(),
      type: readOnly(),
      "mac-address": readOnly(),
      mtu: int(0, 65535, 1500),
      l2mtu: { ...int(0, 65535, 1598), readOnly: true },
      // Nothing passes traffic in the simulator; the counters are there for scripts and the API to read.
      ...Object.fromEntries(counters.map((counter) => [counter, readOnly("0")])),
      ...commonProps,
    },
  },
  {
    path: ["interface", "bridge"],
    table: "interface",
    scope: { prop: "type", value: "bridge" },
    key: "name",
    autoName: "bridge",
    flags: interfaceFlags,
    unique: [nameTaken],
    complete: (values, router) => {
      // With auto-mac=no the bridge takes its admin-mac, as defconf's bridge does (its first port's MAC).
      if (values["auto-mac"] === "no" && values["admin-mac"]) values["mac-address"] = values["admin-mac"];
      else values["mac-address"] ??= macFrom(router.seedText, "bridge", values.name ?? "");
    },
    properties: {
      name,
      type: readOnly(),
      "mac-address": readOnly(),
      mtu: str("auto"),
      "admin-mac": { type: { kind: "mac" } },
      "auto-mac": bool("yes"),
      arp,
      "protocol-mode": oneOf(["none", "rstp", "stp", "mstp"], "rstp"),
      "vlan-filtering": bool("no"),
      pvid: int(1, 4094, 1),
      "frame-types": oneOf(
        ["admit-all", "admit-only-untagged-and-priority-tagged", "admit-only-vlan-tagged"],
        "admit-all",
      ),
      "igmp-snooping": bool("no"),
      ...commonProps,
    },
  },
  {
    path: ["interface", "ethernet"],
    table: "interface",
    scope: { prop: "type", value: "ether" },
    key: "name",
    canAdd: false,
    canRemove: false,
    columns: ["name", "mtu", "mac-address", "arp"],
    flags: interfaceFlags,
    unique: [nameTaken],
    exportSelector: (item) => `[ find default-name=${item.values["default-name"]} ]`,
    builtins: (router) => ethernetPorts(router.model, router.seedText),
    properties: {
      name,
      "default-name": readOnly(),
      type: readOnly(),
      "mac-address": readOnly(),
      mtu: int(0, 65535, 1500),
      l2mtu: int(0, 65535, 1598),
      arp,
      "auto-negotiation": bool("yes"),
      speed: str(),
      ...commonProps,
    },
  },
  {
    // The model's switch chips; RouterOS 7.24's tree (read from a CHR) has no such menu.
    path: ["interface", "ethernet", "switch"],
    table: "ethernet-switch",
    key: "name",
    canAdd: false,
    canRemove: false,
    columns: ["name", "type"],
    requires: (router) => router.model.switchChips.length > 0,
    builtins: (router) => switchChips(router.model),
    properties: {
      name,
      type: readOnly(),
      "l3-hw-offloading": bool("no"),
      "mirror-source": str("none"),
      "mirror-target": str("none"),
    },
  },
  {
    path: ["interface", "vlan"],
    table: "interface",
    scope: { prop: "type", value: "vlan" },
    key: "name",
    autoName: "vlan",
    columns: ["name", "mtu", "arp", "vlan-id", "interface"],
    flags: interfaceFlags,
    unique: [
      nameTaken,
      {
        keys: ["interface", "vlan-id"],
        error: "failure: vlan with such id already exists on this interface",
      },
    ],
    complete: (values, router) => {
      values["mac-address"] ??= macFrom(router.seedText, "vlan", values.name ?? "");
    },
    properties: {
      name,
      type: readOnly(),
      "mac-address": readOnly(),
      "vlan-id": { ...int(1, 4095), required: true },
      interface: ref(anyInterface, { required: true }),
      mtu: int(0, 65535, 1500),
      arp,
      "use-service-tag": bool("no"),
      ...commonProps,
    },
  },
  {
    path: ["interface", "list"],
    table: "interface-list",
    key: "name",
    columns: ["name"],
    unique: [{ keys: ["name"], error: "failure: already have interface list with such name" }],
    builtins: () => ["all", "none", "dynamic", "static"].map((list) => ({ name: list, builtin: "yes" })),
    properties: {
      name,
      builtin: readOnly("no"),
      include: ref(interfaceList, { list: true }),
      exclude: ref(interfaceList, { list: true }),
      comment: commonProps.comment,
    },
  },
  {
    path: ["interface", "bridge", "port"],
    table: "bridge-port",
    columns: ["interface", "bridge", "pvid"],
    unique: [{ keys: ["interface"], error: "failure: device already added as bridge port" }],
    properties: {
      interface: ref(anyInterface, { required: true }),
      bridge: ref(bridgeInterface, { required: true }),
      pvid: int(1, 4094, 1),
      "frame-types": oneOf(
        ["admit-all", "admit-only-untagged-and-priority-tagged", "admit-only-vlan-tagged"],
        "admit-all",
      ),
      "ingress-filtering": bool("yes"),
      hw: bool("yes"),
      horizon: str("none"),
      ...commonProps,
    },
  },
  {
    path: ["interface", "bridge", "vlan"],
    table: "bridge-vlan",
    columns: ["bridge", "vlan-ids", "tagged", "untagged"],
    properties: {
      bridge: ref(bridgeInterface, { required: true }),
      "vlan-ids": { ...int(1, 4094), list: true, required: true },
      tagged: ref(anyInterface, { list: true }),
      untagged: ref(anyInterface, { list: true }),
      ...commonProps,
    },
  },
  {
    path: ["interface", "list", "member"],
    table: "interface-list-member",
    columns: ["list", "interface"],
    unique: [{ keys: ["list", "interface"], error: "failure: already have such entry" }],
    properties: {
      list: ref(interfaceList, { required: true }),
      interface: ref(anyInterface, { required: true }),
      ...commonProps,
    },
  },
];
