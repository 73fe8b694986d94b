/** IPv4 addresses and prefixes as RouterOS writes them: `10.0.0.1`, `10.0.0.0/24`; the one parser of them. */

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

/** `10.0.0.1/24 in 10.0.0.0/8`: the left network lies inside the right one (`where` and `:if`'s `in`). */
export function ipIn(left: string, right: string): boolean {
  const inner = parsePrefix(left);
  const outer = parsePrefix(right);
  if (!inner || !outer || inner.length < outer.length) return false;
  return networkOf({ address: inner.address, length: outer.length }) === networkOf(outer);
}
