/** Conversions between RouterOS values and text, shared by the parser, the interpreter and `where`. */
import { RouterOsError } from "./errors.js";
import type { RosValue } from "./host.js";

const INTEGER = /^-?\d+$/;

/** The value a bare word stands for in a script: `3` is a number, `true`/`false` booleans, anything else text. */
export function typeWord(word: string): RosValue {
  if (INTEGER.test(word)) {
    const number = Number(word);
    if (Number.isSafeInteger(number)) return number;
  }
  if (word === "true") return true;
  if (word === "false") return false;
  return word;
}

/** How `:put` and string joining show a value: arrays joined by `;`, nil as nothing. */
export function toText(value: RosValue): string {
  if (value === null) return "";
  if (Array.isArray(value)) return value.map(toText).join(";");
  return String(value);
}

/** RouterOS writes yes/no where items hold true/false: both spellings compare equal. */
export function normalizeBoolean(text: string): string {
  if (text === "yes") return "true";
  if (text === "no") return "false";
  return text;
}

export function sameValue(left: RosValue, right: RosValue): boolean {
  if (typeof left === "number" && typeof right === "number") return left === right;
  return normalizeBoolean(toText(left)) === normalizeBoolean(toText(right));
}

export function isTrue(value: RosValue): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") return normalizeBoolean(value) === "true";
  return false;
}

export function toNumber(value: RosValue): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string" && INTEGER.test(value.trim())) return Number(value.trim());
  return undefined;
}

export function typeName(value: RosValue): string {
  if (value === null) return "nil";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return "num";
  if (typeof value === "boolean") return "bool";
  return "str";
}

const UNIT_MS: Readonly<Record<string, number>> = {
  w: 604_800_000,
  d: 86_400_000,
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
};
const DURATION = /^(?:\d+(?:w|d|h|ms|m|s))+$/;
const CLOCK = /^(\d+):(\d{1,2}):(\d{1,2})(?:\.(\d{1,3}))?$/;

/** `1s`, `500ms`, `1m30s`, `00:00:01.5` or a plain number of seconds, in milliseconds. */
export function parseDuration(value: RosValue): number {
  const text = toText(value).trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (DURATION.test(text)) {
    let total = 0;
    for (const [, amount, unit] of text.matchAll(/(\d+)(w|d|h|ms|m|s)/g))
      total += Number(amount) * (UNIT_MS[unit ?? "s"] ?? 0);
    return total;
  }
  const clock = CLOCK.exec(text);
  if (clock) {
    const [, h, m, s, fraction = ""] = clock;
    return (Number(h) * 3600 + Number(m) * 60 + Number(s)) * 1000 + Number(fraction.padEnd(3, "0"));
  }
  throw new RouterOsError("invalid value for argument delay-time");
}
