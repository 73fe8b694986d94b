/**
 * Parsers and canonical forms for RouterOS value types. Each parser returns the canonical text, or undefined
 * when the input is not of the type; the caller turns that into the router's own error text.
 */

export function parseIp(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

export function formatIp(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join(".");
}

export interface Prefix {
  readonly address: number;
  readonly length: number;
}

/** `10.0.0.1/24` or a bare address (length 32). */
export function parsePrefix(text: string): Prefix | undefined {
  const [addressText, lengthText, extra] = text.split("/");
  if (addressText === undefined || extra !== undefined) return undefined;
  const address = parseIp(addressText);
  if (address === undefined) return undefined;
  if (lengthText === undefined) return { address, length: 32 };
  if (!/^\d{1,2}$/.test(lengthText) || Number(lengthText) > 32) return undefined;
  return { address, length: Number(lengthText) };
}

export function networkOf(prefix: Prefix): number {
  const size = 2 ** (32 - prefix.length);
  return prefix.address - (prefix.address % size);
}

/** `192.168.1.0/24` for `192.168.1.7/24`: the form RouterOS stores for route destinations. */
export function networkPrefix(prefix: Prefix): string {
  return `${formatIp(networkOf(prefix))}/${prefix.length}`;
}

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

const timeUnits: readonly [string, number][] = [
  ["w", 604_800_000],
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1_000],
  ["ms", 1],
];

/** The compact form RouterOS v7 prints (times are read by `readDuration`, src/routeros/runtime/values.ts). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  let rest = ms;
  let text = "";
  for (const [unit, size] of timeUnits) {
    const count = Math.floor(rest / size);
    if (count > 0) text += `${count}${unit}`;
    rest -= count * size;
  }
  return text;
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
