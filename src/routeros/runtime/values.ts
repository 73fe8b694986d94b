/** Conversions between RouterOS values and text, shared by the interpreter, `where` and the simulated router. */

import { RouterOsError } from "../errors.js";
import { RosCode } from "../language/code-value.js";
import type { RosValue } from "../language/host.js";
import { INTEGER } from "../language/literal-word.js";
import { keysOf } from "./arrays.js";

/** How `:put` and string joining show a value: arrays joined by `;` (a keyed item as `key=value`), nil as nothing. */
export function toText(value: RosValue): string {
  if (value === null) return "";
  if (Array.isArray(value)) {
    const keys = keysOf(value);
    if (!keys) return value.map(toText).join(";");
    return value.map((item, i) => (keys[i] === undefined ? "" : `${keys[i]}=`) + toText(item)).join(";");
  }
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
  if (value instanceof RosCode) return "code";
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
const UNITS = /(\d+)(ms|w|d|h|m|s)/gy;
const CLOCK = /^(?:(\d+)d)?(\d+):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,3}))?)?$/;

/**
 * A RouterOS time in milliseconds, or undefined when `text` is none: `600` (seconds), `1m30s`, `500ms`, `1w2d`,
 * `00:10:00`, `00:00:01.5`, `1d00:10:00`, `12:30` (hours and minutes). The one reader of times: the language
 * (`:delay`) and the simulated router's values use it.
 */
export function readRouterOsTime(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const clock = CLOCK.exec(text);
  if (clock) {
    const [, days, hours, minutes, seconds, fraction = ""] = clock;
    return (
      Number(days ?? 0) * 86_400_000 +
      Number(hours) * 3_600_000 +
      Number(minutes) * 60_000 +
      Number(seconds ?? 0) * 1000 +
      Number(fraction.padEnd(3, "0"))
    );
  }
  UNITS.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = UNITS.exec(text); match; match = UNITS.exec(text)) {
    total += Number(match[1]) * (UNIT_MS[match[2] ?? "s"] ?? 0);
    consumed = UNITS.lastIndex;
  }
  return consumed === text.length && consumed > 0 ? total : undefined;
}

const timeUnits: readonly [string, number][] = [
  ["w", 604_800_000],
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1_000],
  ["ms", 1],
];

/** A time in the compact form RouterOS v7 prints (`1d2h3m`, `500ms`): what `readRouterOsTime` reads. */
export function formatRouterOsTime(ms: number): string {
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

/** `:delay`'s argument in milliseconds; anything else than a time fails as RouterOS says. */
export function parseDelayTime(value: RosValue): number {
  const ms = readRouterOsTime(toText(value).trim());
  if (ms === undefined) throw new RouterOsError("invalid value for argument delay-time");
  return ms;
}

const two = (n: number) => String(n).padStart(2, "0");

/**
 * A time as `:put` prints it: `00:01:30`, `00:00:00.001` (milliseconds only when there are some),
 * `1d02:00:00`, `1w2d00:00:00`.
 */
export function timeText(ms: number): string {
  const weeks = Math.floor(ms / 604_800_000);
  const days = Math.floor((ms % 604_800_000) / 86_400_000);
  const clock = ms % 86_400_000;
  const hours = Math.floor(clock / 3_600_000);
  const minutes = Math.floor((clock % 3_600_000) / 60_000);
  const seconds = Math.floor((clock % 60_000) / 1000);
  const fraction = clock % 1000;
  return (
    (weeks > 0 ? `${weeks}w` : "") +
    (days > 0 ? `${days}d` : "") +
    `${two(hours)}:${two(minutes)}:${two(seconds)}` +
    (fraction > 0 ? `.${String(fraction).padStart(3, "0")}` : "")
  );
}
