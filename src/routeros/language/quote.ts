/** Writing values so that the RouterOS lexer reads them back unchanged. */
import { encodeChar } from "./escapes.js";

/**
 * Text that reads back as itself without quotes in any argument position (ids, addresses, names), and a
 * negated matcher such as `!LAN`, which RouterOS exports bare (`in-interface-list=!LAN`).
 */
const BARE = /^!?[A-Za-z0-9_.:/*+,@%-]+$/;

/** Always double-quoted, with every special or control character escaped; other characters stay as they are. */
export function quoteString(value: string): string {
  const parts: string[] = ['"'];
  let plain = 0;
  for (let i = 0; i < value.length; i++) {
    const char = value[i] as string;
    const escaped = encodeChar(char);
    if (escaped === char) continue;
    parts.push(value.slice(plain, i), escaped);
    plain = i + 1;
  }
  parts.push(value.slice(plain), '"');
  return parts.join("");
}

/** A RouterOS literal that reads back as exactly `value`: bare when that is safe, quoted otherwise. */
export function quoteValue(value: string): string {
  return BARE.test(value) ? value : quoteString(value);
}
