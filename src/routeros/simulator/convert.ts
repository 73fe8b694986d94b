/**
 * Conversions between three forms of a property value: what a script writes (`interface=ether1`), what the
 * tree stores (canonical; references as item ids `*2` so a rename follows through), and what print, export,
 * `where` and the API show (names again). Errors carry RouterOS's own texts.
 */
import { RouterOsError } from "../errors.js";
import { parseIp, parsePrefix } from "../runtime/ipv4.js";
import { formatRouterOsTime, readRouterOsTime } from "../runtime/values.js";
import type { PropDef, RouterState, ValueType } from "./schema.js";
import { isHost, isIpRangeOrPrefix, isIpv6Prefix, isPortList, parseMac } from "./values.js";

export const formatId = (id: number): string => `*${id.toString(16).toUpperCase()}`;

export function parseId(text: string): number | undefined {
  return /^\*[0-9a-f]+$/i.test(text) ? Number.parseInt(text.slice(1), 16) : undefined;
}

/** Words RouterOS takes in place of a time interval in some menus (`timeout=none`, `interval=never`). */
const intervalWords: ReadonlySet<string> = new Set([
  "none",
  "never",
  "auto",
  "disabled",
  "default",
  "infinity",
]);

const invalid = (name: string) => new RouterOsError(`invalid value for argument ${name}`);
const noMatch = (name: string) => new RouterOsError(`input does not match any value of ${name}`);

function parseOne(name: string, type: ValueType, text: string, router: RouterState): string {
  switch (type.kind) {
    case "string":
      return text;
    case "ip":
      if (parseIp(text) === undefined) throw invalid(name);
      return text;
    case "ip-prefix": {
      const prefix = parsePrefix(text);
      if (!prefix) throw invalid(name);
      return text.includes("/") ? text : `${text}/32`;
    }
    case "ip46":
      if (parseIp(text) === undefined && (text.includes("/") || !isIpv6Prefix(text))) throw invalid(name);
      return text;
    case "interval":
      if (!intervalWords.has(text) && !text.split("-").every((part) => readRouterOsTime(part) !== undefined))
        throw invalid(name);
      return text;
    case "ipv6-prefix":
      if (!isIpv6Prefix(text)) throw invalid(name);
      return text;
    case "ip-match":
      if (!isIpRangeOrPrefix(text)) throw invalid(name);
      return text;
    case "host":
      if (!isHost(text) && !isIpRangeOrPrefix(text)) throw invalid(name);
      return text;
    case "mac": {
      const mac = parseMac(text);
      if (!mac) throw invalid(name);
      return mac;
    }
    case "int": {
      if (!/^-?\d+$/.test(text)) throw invalid(name);
      const value = Number(text);
      if (value < type.min || value > type.max) {
        throw new RouterOsError(`value of ${name} out of range (${type.min}..${type.max})`);
      }
      return String(value);
    }
    case "kib": {
      const match = /^(\d+)(KiB|MiB|GiB)?$/.exec(text);
      if (!match) throw invalid(name);
      const value = Number(match[1]) * (match[2] === "GiB" ? 1024 * 1024 : match[2] === "MiB" ? 1024 : 1);
      if (value < type.min || value > type.max) {
        throw new RouterOsError(`value of ${name} out of range (${type.min}KiB..${type.max}KiB)`);
      }
      return `${value}KiB`;
    }
    case "enum":
      if (!type.values.includes(text)) throw noMatch(name);
      return text;
    case "bool":
      if (text === "yes" || text === "true") return "yes";
      if (text === "no" || text === "false") return "no";
      throw invalid(name);
    case "time": {
      const ms = readRouterOsTime(text);
      if (ms === undefined) throw invalid(name);
      return formatRouterOsTime(ms);
    }
    case "ports":
      if (!isPortList(text)) throw invalid(name);
      return text;
    case "ref": {
      if (type.also?.includes(text)) return text;
      const item = router.resolve(type.target, text);
      if (!item) throw noMatch(name);
      return formatId(item.id);
    }
  }
}

/** Script text -> stored form. Throws `RouterOsError` naming the argument. */
export function parseValue(name: string, def: PropDef, text: string, router: RouterState): string {
  let body = text;
  let negation = "";
  if (def.negatable && body.startsWith("!")) {
    negation = "!";
    body = body.slice(1);
  }
  if (def.list) {
    if (body === "") return negation;
    return (
      negation +
      body
        .split(",")
        .map((part) => parseOne(name, def.type, part, router))
        .join(",")
    );
  }
  if (body === "" && def.type.kind !== "string") {
    if (def.required) throw invalid(name);
    return "";
  }
  return negation + parseOne(name, def.type, body, router);
}

/** Stored form -> what print and export show (names for references; a dangling one stays `*N`). */
export function showValue(def: PropDef, stored: string, router: RouterState): string {
  const type = def.type;
  if (type.kind !== "ref" || stored === "") return stored;
  const negation = stored.startsWith("!") ? "!" : "";
  const body = negation ? stored.slice(1) : stored;
  const names = body.split(",").map((part) => {
    const id = parseId(part);
    return id === undefined ? part : (router.nameOf(type.target, id) ?? part);
  });
  return negation + names.join(",");
}

/** The API and `where` view: booleans as `true`/`false`, as RouterOS's `get` returns them. */
export function apiValue(def: PropDef, shown: string): string {
  if (def.type.kind !== "bool") return shown;
  return shown === "yes" ? "true" : shown === "no" ? "false" : shown;
}

/** Whether a stored reference points at an item that no longer exists (RouterOS flags the item invalid). */
export function isDangling(def: PropDef, stored: string, router: RouterState): boolean {
  const type = def.type;
  if (type.kind !== "ref" || stored === "") return false;
  return stored
    .replace(/^!/, "")
    .split(",")
    .some((part) => {
      const id = parseId(part);
      return id !== undefined && router.nameOf(type.target, id) === undefined;
    });
}
