/**
 * RouterOS string escapes, shared by the lexer (reading) and the quoter (writing) so the two cannot drift.
 * `\HH` takes two upper-case hex digits, as the manual asks; `\a` (lower case) stays BEL.
 */
const DECODE: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  n: "\n",
  r: "\r",
  t: "\t",
  $: "$",
  "?": "?",
  _: " ",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
};

/** Characters the quoter must escape inside double quotes, with their escape letter. */
const ENCODE: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  $: "\\$",
  "?": "\\?",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

function isUpperHex(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70);
}

/**
 * Decodes the escape whose letter is at `index` (just after the backslash). Returns the text and how many
 * characters it used, or undefined at the end of input. An unknown letter stands for itself, like the console.
 */
export function decodeEscape(source: string, index: number): { text: string; length: number } | undefined {
  const letter = source[index];
  if (letter === undefined) return undefined;
  if (
    index + 1 < source.length &&
    isUpperHex(source.charCodeAt(index)) &&
    isUpperHex(source.charCodeAt(index + 1))
  ) {
    return { text: String.fromCharCode(Number.parseInt(source.slice(index, index + 2), 16)), length: 2 };
  }
  return { text: DECODE[letter] ?? letter, length: 1 };
}

/** The escaped form of one character inside double quotes (the character itself when none is needed). */
export function encodeChar(char: string): string {
  const named = ENCODE[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  if (char.length === 1 && (code < 0x20 || code === 0x7f))
    return `\\${code.toString(16).toUpperCase().padStart(2, "0")}`;
  return char;
}
