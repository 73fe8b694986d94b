/**
 * Arithmetic on addresses, as RouterOS scripts compute networks and masks: `$address & 255.255.255.0`,
 * `$address | ~$mask`, `$prefix6 & ffff:ffff:ffff:ffff::`, `$gateway + 1`, `$last - $first`. An address is text
 * here (`:toip` gives text), so the operators look at the text: IPv4 as 32 bits, IPv6 as 128.
 */

import type { RosValue } from "../language/host.js";
import { formatIp, parseIp } from "./ipv4.js";

interface Address {
  readonly bits: 32 | 128;
  readonly value: bigint;
}

const MASK: Readonly<Record<32 | 128, bigint>> = { 32: (1n << 32n) - 1n, 128: (1n << 128n) - 1n };

/** Eight groups of up to four hex digits, `::` standing for zeros once; undefined for anything else. */
export function parseIp6(text: string): bigint | undefined {
  if (!text.includes(":")) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string | undefined) => (half === undefined || half === "" ? [] : half.split(":"));
  const head = groupsOf(halves[0]);
  const tail = groupsOf(halves[1]);
  const groups = [...head, ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  if (halves.length === 2 ? groups.length >= 8 : groups.length !== 8) return undefined;
  const all = [...head, ...Array.from({ length: 8 - groups.length }, () => "0"), ...tail];
  return all.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

/** The compact form RouterOS prints: lower case, leading zeros dropped, the longest run of zero groups `::`. */
export function formatIp6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > best.length && end - i > 1) best = { start: i, length: end - i };
    i = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start === -1) return hex.join(":");
  return `${hex.slice(0, best.start).join(":")}::${hex.slice(best.start + best.length).join(":")}`;
}

function addressOf(value: RosValue): Address | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  const v4 = parseIp(text);
  if (v4 !== undefined) return { bits: 32, value: BigInt(v4) };
  const v6 = parseIp6(text);
  return v6 === undefined ? undefined : { bits: 128, value: v6 };
}

function formatAddress(bits: 32 | 128, value: bigint): string {
  const masked = value & MASK[bits];
  return bits === 32 ? formatIp(Number(masked)) : formatIp6(masked);
}

const BITWISE: Readonly<Record<string, (a: bigint, b: bigint) => bigint>> = {
  "&": (a, b) => a & b,
  "|": (a, b) => a | b,
  "^": (a, b) => a ^ b,
};

/**
 * `left operator right` when a side is an address; undefined when neither is (the operator works on numbers).
 * Bitwise operators take two addresses of one family (or an address and a number); `+` and `-` move an
 * address by a number, and `-` between two addresses gives the distance.
 */
export function addressArithmetic(operator: string, left: RosValue, right: RosValue): RosValue | undefined {
  const a = addressOf(left);
  const b = addressOf(right);
  if (!a && !b) return undefined;
  const numberOf = (value: RosValue) => (typeof value === "number" ? BigInt(Math.trunc(value)) : undefined);
  const bitwise = BITWISE[operator];
  if (bitwise) {
    const bits = (a ?? b)?.bits ?? 32;
    const x = a?.value ?? numberOf(left);
    const y = b?.value ?? numberOf(right);
    if (x === undefined || y === undefined || (a && b && a.bits !== b.bits)) return undefined;
    return formatAddress(bits, bitwise(x, y));
  }
  if (operator === "+" && (a || b)) {
    const base = a ?? b;
    const offset = a ? numberOf(right) : numberOf(left);
    return base && offset !== undefined ? formatAddress(base.bits, base.value + offset) : undefined;
  }
  if (operator === "-" && a) {
    if (b && a.bits === b.bits) return Number(a.value - b.value);
    const offset = numberOf(right);
    return offset === undefined ? undefined : formatAddress(a.bits, a.value - offset);
  }
  return undefined;
}

/** `~$mask`: every bit of an address flipped (`~0.0.0.255` is `255.255.255.0`); undefined for a non-address. */
export function invertAddress(value: RosValue): string | undefined {
  const address = addressOf(value);
  return address ? formatAddress(address.bits, ~address.value) : undefined;
}
