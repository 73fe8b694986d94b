/**
 * Every menu the simulated router knows, in export order: a menu comes after the menus its references point
 * into (bridges before bridge ports, pools before DHCP servers), so an export replays top to bottom.
 */
import type { MenuDef } from "../schema.js";
import { dhcpMenus } from "./dhcp.js";
import { fileMenus } from "./file.js";
import { firewallMenus } from "./firewall.js";
import { interfaceMenus } from "./interface.js";
import { ipMenus } from "./ip.js";
import { managementMenus } from "./management.js";
import { systemMenus } from "./system.js";

const byPath = (menus: readonly MenuDef[], path: string) => {
  const menu = menus.find((m) => m.path.join(" ") === path);
  if (!menu) throw new Error(`menu ${path} is not declared`);
  return menu;
};

const all = [
  ...interfaceMenus,
  ...ipMenus,
  ...dhcpMenus,
  ...firewallMenus,
  ...systemMenus,
  ...managementMenus,
  ...fileMenus,
];

export const menus: readonly MenuDef[] = [
  "interface",
  "interface bridge",
  "interface ethernet",
  "interface ethernet switch",
  "interface vlan",
  "interface list",
  "ip pool",
  "ip dhcp-server",
  "interface bridge port",
  "interface bridge vlan",
  "interface list member",
  "ip address",
  "ip arp",
  "ip dhcp-server lease",
  "ip dhcp-server network",
  "ip dns",
  "ip dns static",
  "ip firewall address-list",
  "ip firewall filter",
  "ip firewall mangle",
  "ip firewall nat",
  "ip route",
  "ip service",
  "snmp",
  "system",
  "system backup",
  "system clock",
  "system identity",
  "system resource",
  "system routerboard",
  "system routerboard settings",
  "system package",
  "system ntp client",
  "system scheduler",
  "system script",
  "system script job",
  "user",
  "log",
  "file",
].map((path) => byPath(all, path));

const unordered = all.filter((menu) => !menus.includes(menu));
if (unordered.length > 0)
  throw new Error(`menus missing from the export order: ${unordered.map((m) => m.path.join(" "))}`);
