/** What references point at; shared by the menus that hold the items and those that name them. */
import type { RefTarget } from "../schema.js";

export const anyInterface: RefTarget = { table: "interface" };
export const bridgeInterface: RefTarget = { table: "interface", scope: { prop: "type", value: "bridge" } };
export const interfaceList: RefTarget = { table: "interface-list" };
export const ipPool: RefTarget = { table: "ip-pool" };
export const dhcpServer: RefTarget = { table: "dhcp-server" };
