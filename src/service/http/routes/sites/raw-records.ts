/**
 * The router back end answers in the service's keys (`.id` as `id`, `-` as `_`, every value a string: the
 * spec route's view). The sites API answers as RouterOS does, so the keys go back and the values are typed.
 *
 * Typing rule (docs/service.md): only values whose text is exactly what `String(value)` gives back are typed,
 * so a reader that wants strings recovers the router's text exactly:
 * - `"true"` and `"false"` (how the API prints a boolean property) become booleans. `yes`/`no` stay strings:
 *   RouterOS writes them for enum properties that have other values too (`add-default-route=special-classless`),
 *   and typing one value of an enum would give one property two types.
 * - A canonical integer (`0`, `1500`, `-3`: no sign on zero, no leading zero, within 2^53) becomes a number.
 *   Decimals (`7.16` is a version) and durations (`1d2h`) stay strings.
 * - Free text keeps its type whatever it holds: `name`, `default-name` and `comment` are strings.
 */
import type { RawRecord } from "../../../../contract/sites.js";
import type { RouterRecord } from "../../../../contract/sync.js";

const TEXT_KEYS: ReadonlySet<string> = new Set(["name", "default-name", "comment"]);
const CANONICAL_INTEGER = /^(0|-?[1-9]\d*)$/;

/** The RouterOS key of a service key: `id` is `.id`, `_` is `-` (RouterOS names use no underscore). */
export function routerOsKey(serviceKey: string): string {
  return serviceKey === "id" ? ".id" : serviceKey.replaceAll("_", "-");
}

/** A value's JSON type by the rule above; `String(rawValue(key, text)) === text` for every input. */
export function rawValue(key: string, text: string): string | number | boolean {
  if (TEXT_KEYS.has(key)) return text;
  if (text === "true") return true;
  if (text === "false") return false;
  if (CANONICAL_INTEGER.test(text)) {
    const number = Number(text);
    if (Number.isSafeInteger(number)) return number;
  }
  return text;
}

export function toRawRecord(record: RouterRecord): RawRecord {
  return Object.fromEntries(
    Object.entries(record).map(([serviceKey, text]) => {
      const key = routerOsKey(serviceKey);
      return [key, rawValue(key, text)];
    }),
  );
}
