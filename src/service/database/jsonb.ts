/**
 * JSON for a jsonb column that must keep any JavaScript string: a router's saved state. RouterOS strings are
 * bytes (`/system identity set name="a\00b"` is a valid script), while PostgreSQL's jsonb refuses NUL and stores
 * no unpaired surrogate. Such a string is written as `{"$rj.utf16": [code units]}` and read back whole; every
 * other value is plain JSON.
 */
import { unstorableText } from "../../contract/text.js";

const MARK = "$rj.utf16";

/** The text to bind to a `$n::jsonb` parameter. */
export function toJsonb(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, item: unknown) =>
    typeof item === "string" && unstorableText(item) !== undefined
      ? { [MARK]: Array.from({ length: item.length }, (_, index) => item.charCodeAt(index)) }
      : item,
  );
}

/** A jsonb value as the driver returned it, with the strings `toJsonb` encoded restored. */
export function fromJsonb(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromJsonb);
  if (value === null || typeof value !== "object") return value;
  const units = (value as Record<string, unknown>)[MARK];
  if (Array.isArray(units) && Object.keys(value).length === 1) return String.fromCharCode(...units);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fromJsonb(item)]));
}
