import { upsert, without } from "./upsert.js";

export interface DhcpServerProps {
  readonly name: string;
  readonly interface: string;
  /** Name of the `/ip pool` to lease from. */
  readonly "address-pool": string;
  /** Such as `30m` or `1d`. @default - RouterOS's (30m) */
  readonly "lease-time"?: string;
  readonly disabled?: boolean;
  readonly comment?: string;
}

/** A DHCP server, identified by name. */
export function dhcpServer(props: DhcpServerProps): string {
  return upsert(["ip", "dhcp-server"], { name: props.name }, without(props, "name"));
}

export interface DhcpNetworkProps {
  /** The network the leases belong to, e.g. `192.168.88.0/24`. */
  readonly address: string;
  readonly gateway: string;
  /** DNS servers handed out, comma-joined. @default - none */
  readonly "dns-server"?: string | readonly string[];
  readonly domain?: string;
  readonly comment?: string;
}

/** The options of a DHCP network, identified by its address. */
export function dhcpNetwork(props: DhcpNetworkProps): string {
  const dns = props["dns-server"];
  return upsert(
    ["ip", "dhcp-server", "network"],
    { address: props.address },
    {
      ...without(props, "address"),
      "dns-server": typeof dns === "string" || dns === undefined ? dns : dns.join(","),
    },
  );
}
