/**
 * Where the service may send notifications. A team names any https `notify_url`, and the service calls it from
 * inside its own network: without a rule, a URL on loopback (`127.1`, `2130706433`, `0x7f000001` all mean
 * 127.0.0.1), on a private network or at a cloud metadata address would make the service a proxy into places
 * its callers cannot reach (SSRF). Those ranges are refused unless the operator allows them
 * (`--notify-allow 10.20.0.0/16`, the demo and the tests allow loopback).
 *
 * The check is made on the address the connection goes to: on the literal address of the URL, and on every
 * address a host name resolves to, inside the connection's own lookup, so a name that resolves to a public
 * address when checked and to a private one when connecting (DNS rebinding) cannot slip through.
 */

import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { BlockList, isIP } from "node:net";
import { RouterjobsError, UsageError } from "../../errors.js";

/** Address ranges a notification never goes to by default, with the name an error gives them. */
const FORBIDDEN: readonly (readonly [string, number, "ipv4" | "ipv6", string])[] = [
  ["0.0.0.0", 8, "ipv4", "this network"],
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["10.0.0.0", 8, "ipv4", "private"],
  ["172.16.0.0", 12, "ipv4", "private"],
  ["192.168.0.0", 16, "ipv4", "private"],
  ["100.64.0.0", 10, "ipv4", "shared (carrier-grade NAT)"],
  ["169.254.0.0", 16, "ipv4", "link-local (cloud metadata)"],
  ["192.0.0.0", 24, "ipv4", "IETF protocol assignments"],
  ["198.18.0.0", 15, "ipv4", "benchmarking"],
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved"],
  ["::", 128, "ipv6", "unspecified"],
  ["::1", 128, "ipv6", "loopback"],
  ["fc00::", 7, "ipv6", "private (unique local)"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["ff00::", 8, "ipv6", "multicast"],
  ["64:ff9b::", 96, "ipv6", "NAT64 (an IPv4 address inside)"],
];

export class NotifyDestinationError extends RouterjobsError {
  override readonly name = "NotifyDestinationError";
  override readonly code = "RJ_ERR_VALIDATION";
}

export interface NotifyDestinations {
  /** Throws `NotifyDestinationError` naming the range when `address` may not be called. */
  check(address: string): void;
  /** A `lookup` for `net.connect` that resolves as usual and refuses forbidden addresses. */
  readonly lookup: typeof dnsLookup;
}

/** `10.20.0.0/16`, `127.0.0.1`, `::1/128`: the operator's exceptions; an error names the bad entry. */
export function parseAllowList(entries: readonly string[], setting = "--notify-allow"): BlockList {
  const allowed = new BlockList();
  for (const entry of entries) {
    const [address = "", prefixText] = entry.trim().split("/");
    const family = isIP(address);
    const max = family === 6 ? 128 : 32;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
      throw new UsageError(
        `${setting}: ${JSON.stringify(entry)} is no address or CIDR range (like 10.20.0.0/16 or ::1/128)`,
      );
    }
    allowed.addSubnet(address, prefix, family === 6 ? "ipv6" : "ipv4");
  }
  return allowed;
}

export function notifyDestinations(allowList: readonly string[] = []): NotifyDestinations {
  const allowed = parseAllowList(allowList);
  const ranges = FORBIDDEN.map(([network, prefix, family, name]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, name };
  });
  const check = (address: string): void => {
    const family: "ipv4" | "ipv6" = isIP(address) === 6 ? "ipv6" : "ipv4";
    // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is that IPv4 address.
    const mapped = mappedIpv4(address);
    const target = mapped ?? address;
    const targetFamily: "ipv4" | "ipv6" = mapped ? "ipv4" : family;
    if (allowed.check(target, targetFamily)) return;
    const range = ranges.find(({ list }) => list.check(target, targetFamily));
    if (range) {
      throw new NotifyDestinationError(
        `notify_url goes to ${target}, a ${range.name} address, which this service does not call (an operator can allow it with --notify-allow)`,
      );
    }
  };
  const lookup = ((hostname: string, options: LookupAllOptions, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      try {
        for (const { address } of addresses) check(address);
      } catch (refused) {
        return callback(refused);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      return callback(null, first?.address, first?.family);
    });
  }) as typeof dnsLookup;
  return { check, lookup };
}

/** The IPv4 address inside an IPv4-mapped IPv6 one, in either spelling (`::ffff:127.0.0.1`, `::ffff:7f00:1`). */
function mappedIpv4(address: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [high, low] = [Number.parseInt(hex[1] as string, 16), Number.parseInt(hex[2] as string, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** The literal address of a URL's host, if it has one (WHATWG URLs write `127.1` as 127.0.0.1 already). */
export function literalAddress(url: string): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return isIP(host) === 0 ? undefined : host;
}
