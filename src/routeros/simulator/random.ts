/**
 * Determinism without `Math.random`: a seeded PRNG for knobs (fault injection) and a string hash for values
 * that must not depend on call order (neighbour addresses, MAC addresses).
 */

/** mulberry32: tiny, fast and good enough to pick faults; the state is one 32-bit integer. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** FNV-1a over the parts: the same inputs give the same 32-bit number on every run and machine. */
export function hash32(...parts: readonly (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const char of parts.join("\u0000")) {
    h ^= char.codePointAt(0) ?? 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A MikroTik-looking MAC address (OUI 48:A9:8A) derived from the parts. */
export function macFrom(...parts: readonly (string | number)[]): string {
  const h = hash32(...parts);
  const bytes = [0x48, 0xa9, 0x8a, (h >>> 16) & 0xff, (h >>> 8) & 0xff, h & 0xff];
  return bytes.map((b) => b.toString(16).toUpperCase().padStart(2, "0")).join(":");
}
