/**
 * Parsers and canonical forms for RouterOS value types. Each parser returns the canonical text, or undefined
 * when the input is not of the type; the caller turns that into the router's own error text.
 */
import { parseIp, parsePrefix } from "../runtime/ipv4.js";

/** `a.b.c.d-e.f.g.h` (ordered) or a prefix; RouterOS keeps the text as written once valid. */
export function isIpRangeOrPrefix(text: string): boolean {
  const dash = text.split("-");
  if (dash.length === 2) {
    const [from, to] = dash.map((part) => parseIp(part));
    return from !== undefined && to !== undefined && from <= to;
  }
  return parsePrefix(text) !== undefined;
}

export function parseMac(text: string): string | undefined {
  return /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(text) ? text.toUpperCase() : undefined;
}

/** Firewall port lists: `80`, `8000-8080`, `22,80,443`. */
export function isPortList(text: string): boolean {
  return text.split(",").every((part) => {
    const bounds = part.split("-");
    if (bounds.length > 2 || bounds.some((b) => !/^\d{1,5}$/.test(b) || Number(b) > 65535)) return false;
    return bounds.length === 1 || Number(bounds[0]) <= Number(bounds[1]);
  });
}

/** A DNS name or an address, as NTP servers and address-list entries accept. */
export function isHost(text: string): boolean {
  return (
    parseIp(text) !== undefined || /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9-]+)*$/i.test(text)
  );
}

/** `2001:db8::1`, `::`, `fe80::1/64`: eight groups of up to four hex digits, `::` standing for zeros once. */
export function isIpv6Prefix(text: string): boolean {
  const [address = "", length, extra] = text.split("/");
  if (extra !== undefined) return false;
  if (length !== undefined && (!/^\d{1,3}$/.test(length) || Number(length) > 128)) return false;
  const halves = address.split("::");
  if (halves.length > 2) return false;
  const groups = halves.flatMap((half) => (half === "" ? [] : half.split(":")));
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return false;
  return halves.length === 2 ? groups.length < 8 : groups.length === 8;
}
