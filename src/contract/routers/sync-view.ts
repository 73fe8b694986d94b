/**
 * The service's view of the RouterOS API, shared by every router back end: the spec's synchronous call carries
 * `parameters` as one string of API words, and answers records with the service's keys.
 *
 * Word splitting: API words have no separator of their own once flattened into one string, so a word ends at
 * whitespace followed by `=`, `?` or `.` (the start of the next word); values may hold spaces
 * (`=comment=office uplink`). `=script=` consumes the whole rest of the string, because scripts contain spaces,
 * newlines and `=`.
 */
import type { RouterRecord } from "../sync.js";

export function splitWords(parameters: string): string[] {
  const words: string[] = [];
  let rest = parameters.trim();
  while (rest !== "") {
    if (rest.startsWith("=script=")) {
      words.push(rest);
      break;
    }
    const next = /\s+(?=[=?.])/.exec(rest);
    words.push(next ? rest.slice(0, next.index) : rest);
    rest = next ? rest.slice(next.index + next[0].length) : "";
  }
  return words;
}

/** RouterOS names -> the service's keys (`.id` -> `id`, `-` -> `_`), values kept as strings. */
export function toServiceRecord(record: Readonly<Record<string, string>>): RouterRecord {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key === ".id" ? "id" : key.replaceAll("-", "_"), value]),
  );
}
