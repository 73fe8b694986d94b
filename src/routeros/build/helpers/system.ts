import { buildCommand } from "../builder.js";

/** `/system identity set name=...`: the router's name. */
export function identity(name: string): string {
  return buildCommand(["system", "identity"], "set", { name });
}

export interface DnsProps {
  /** Upstream DNS servers, in order. */
  readonly servers: readonly string[];
  /** Answer DNS queries from the network (the router as resolver). @default - unchanged */
  readonly "allow-remote-requests"?: boolean;
}

/** `/ip dns set servers=...`. A list of servers is shorthand for `{ servers }`. */
export function dnsServers(props: DnsProps | readonly string[]): string {
  const { servers, ...rest } = isList(props) ? { servers: props } : props;
  return buildCommand(["ip", "dns"], "set", { servers: servers.join(","), ...rest });
}

export interface NtpClientProps {
  /** NTP servers (addresses or host names). */
  readonly servers: readonly string[];
  /** @default true */
  readonly enabled?: boolean;
}

/** `/system ntp client set enabled=yes servers=...` (RouterOS v7). */
export function ntpClient(props: NtpClientProps): string {
  return buildCommand(["system", "ntp", "client"], "set", {
    enabled: props.enabled ?? true,
    servers: props.servers.join(","),
  });
}

function isList(value: DnsProps | readonly string[]): value is readonly string[] {
  return Array.isArray(value);
}
