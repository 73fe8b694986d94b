/**
 * Typed builders of RouterOS commands for router configuration, each returning one script line that can run
 * again without failing (see `upsert`). Values go through `buildCommand`, so they are always quoted correctly.
 * Property names are RouterOS's own (`"address-pool"`, `"vlan-id"`). Plain functions: no cdktf here.
 */
export { type DhcpNetworkProps, type DhcpServerProps, dhcpNetwork, dhcpServer } from "./dhcp.js";
export {
  type FirewallRuleProps,
  firewallFilter,
  firewallNat,
  type NatRuleProps,
  removeFirewallRule,
} from "./firewall.js";
export {
  type BridgePortProps,
  type BridgeProps,
  bridge,
  bridgePort,
  type InterfaceListMemberProps,
  type InterfaceListProps,
  interfaceList,
  interfaceListMember,
  type VlanProps,
  vlan,
} from "./interface.js";
export {
  type AddressListProps,
  addressList,
  type IpAddressProps,
  type IpPoolProps,
  ipAddress,
  ipPool,
  removeIpAddress,
} from "./ip.js";
export { type DnsProps, dnsServers, identity, type NtpClientProps, ntpClient } from "./system.js";
export { type Properties, removeWhere, upsert } from "./upsert.js";
