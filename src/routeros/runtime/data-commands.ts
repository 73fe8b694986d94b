/**
 * `:convert`, `:serialize`, `:deserialize`, `:rndstr` and `:rndnum`: the value commands of named arguments.
 * Strings are bytes on RouterOS (`"\FF"` is one byte), so conversions work on the string's characters as
 * bytes (latin1); `to=raw` gives them back the same way.
 */

import { createHash } from "node:crypto";
import { RouterOsError } from "../errors.js";
import type { DataCommandName } from "../language/ast.js";
import type { RosValue } from "../language/host.js";
import { arrayOf, entriesOf, keysOf } from "./arrays.js";
import { toNumber, toText } from "./values.js";

type Named = ReadonlyMap<string, RosValue>;

function invalid(name: string): RouterOsError {
  return new RouterOsError(`invalid value for argument ${name}`);
}

function missing(name: string): RouterOsError {
  return new RouterOsError(`missing value(s) of argument(s) ${name}`);
}

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** `:rndstr` without `length=`: RouterOS's manual gives no default; 16 is decided here (docs/routeros.md). */
const DEFAULT_RNDSTR_LENGTH = 16;
const MAX_RNDSTR_LENGTH = 4096;

export function runDataCommand(
  name: DataCommandName,
  value: RosValue | undefined,
  named: Named,
  random: () => number,
): RosValue {
  switch (name) {
    case "convert":
      return convert(value ?? null, named);
    case "serialize":
      return serialize(value ?? null, named);
    case "deserialize":
      return deserialize(toText(value ?? null), named);
    case "rndstr": {
      const from = named.has("from") ? toText(named.get("from") ?? null) : ALPHANUMERIC;
      const length = named.has("length") ? toNumber(named.get("length") ?? null) : DEFAULT_RNDSTR_LENGTH;
      if (from === "") throw invalid("from");
      if (length === undefined || length < 0 || length > MAX_RNDSTR_LENGTH) throw invalid("length");
      let text = "";
      for (let i = 0; i < length; i++) text += from[Math.floor(random() * from.length)];
      return text;
    }
    case "rndnum": {
      if (!named.has("from")) throw missing("from");
      if (!named.has("to")) throw missing("to");
      const from = toNumber(named.get("from") ?? null);
      const to = toNumber(named.get("to") ?? null);
      if (from === undefined) throw invalid("from");
      if (to === undefined || to < from) throw invalid("to");
      return from + Math.floor(random() * (to - from + 1));
    }
  }
}

/** The bytes `value` stands for, read as `from=` says. */
function decode(value: RosValue, from: string): Buffer {
  switch (from) {
    case "raw":
      return Buffer.from(toText(value), "latin1");
    case "hex": {
      const text = toText(value);
      if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw invalid("value");
      return Buffer.from(text, "hex");
    }
    case "base64":
      return Buffer.from(toText(value), "base64");
    case "url":
      return Buffer.from(
        toText(value)
          .replace(/\+/g, " ")
          .replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
        "latin1",
      );
    case "num": {
      const number = toNumber(value);
      if (number === undefined || number < 0) throw invalid("value");
      let hex = BigInt(number).toString(16);
      if (hex.length % 2 === 1) hex = `0${hex}`;
      return Buffer.from(hex, "hex");
    }
    case "byte-array": {
      const items = Array.isArray(value) ? value : [value];
      return Buffer.from(
        items.map((item) => {
          const byte = toNumber(item);
          if (byte === undefined || byte < 0 || byte > 255) throw invalid("value");
          return byte;
        }),
      );
    }
    case "rot13":
      return Buffer.from(rot13(toText(value)), "latin1");
    default:
      throw invalid("from");
  }
}

function encode(bytes: Buffer, to: string): RosValue {
  switch (to) {
    case "raw":
      return bytes.toString("latin1");
    case "hex":
      return bytes.toString("hex");
    case "base64":
      return bytes.toString("base64");
    case "url":
      return [...bytes]
        .map((byte) =>
          /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
            ? String.fromCharCode(byte)
            : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`,
        )
        .join("");
    case "num":
      return bytes.length === 0 ? 0 : Number(BigInt.asIntN(64, BigInt(`0x${bytes.toString("hex")}`)));
    case "byte-array":
      return [...bytes];
    case "rot13":
      return rot13(bytes.toString("latin1"));
    default:
      throw invalid("to");
  }
}

function rot13(text: string): string {
  return text.replace(/[a-zA-Z]/g, (char) => {
    const base = char <= "Z" ? 65 : 97;
    return String.fromCharCode(((char.charCodeAt(0) - base + 13) % 26) + base);
  });
}

const DIGESTS: Readonly<Record<string, string>> = {
  md5: "md5",
  sha1: "sha1",
  sha256: "sha256",
  sha512: "sha512",
};

function transform(bytes: Buffer, how: string): Buffer {
  const digest = DIGESTS[how];
  if (digest) return createHash(digest).update(bytes).digest();
  switch (how) {
    case "lc":
      return Buffer.from(bytes.toString("latin1").toLowerCase(), "latin1");
    case "uc":
      return Buffer.from(bytes.toString("latin1").toUpperCase(), "latin1");
    case "reverse":
      return Buffer.from([...bytes].reverse());
    default:
      throw invalid("transform");
  }
}

/** `:convert $x from=hex to=base64 transform=md5`: read as `from` (raw), transform, write as `to` (raw). */
function convert(value: RosValue, named: Named): RosValue {
  const option = (name: string) => (named.has(name) ? toText(named.get(name) ?? null) : undefined);
  let bytes = decode(value, option("from") ?? "raw");
  const how = option("transform");
  if (how !== undefined) for (const step of how.split(",")) bytes = transform(bytes, step);
  return encode(bytes, option("to") ?? "raw");
}

/** A value as JSON: a list is a JSON array, an array with keys an object, nil null. */
function toJson(value: RosValue): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) {
    const keys = keysOf(value);
    if (!keys) return value.map(toJson);
    // Items without a key keep their positions as the object's names, as an array turned object does.
    return Object.fromEntries(value.map((item, index) => [keys[index] ?? String(index), toJson(item)]));
  }
  if (typeof value === "number" || typeof value === "boolean") return value;
  return toText(value);
}

function fromJson(value: unknown): RosValue {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(fromJson);
  if (typeof value === "object")
    return arrayOf(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, fromJson(item)]),
    );
  if (typeof value === "number") return Number.isSafeInteger(value) ? value : String(value);
  if (typeof value === "boolean") return value;
  return String(value);
}

function options(named: Named): string[] {
  return named.has("options") ? toText(named.get("options") ?? null).split(",") : [];
}

function delimiterOf(named: Named): string {
  const delimiter = named.has("delimiter") ? toText(named.get("delimiter") ?? null) : ",";
  if (delimiter.length < 1 || delimiter.length > 3) throw invalid("delimiter");
  return delimiter;
}

function serialize(value: RosValue, named: Named): RosValue {
  const to = named.has("to") ? toText(named.get("to") ?? null) : undefined;
  if (to === undefined) throw missing("to");
  if (to === "json")
    return JSON.stringify(toJson(value), null, options(named).includes("json.pretty") ? 2 : 0);
  if (to === "dsv") {
    const delimiter = delimiterOf(named);
    return entriesOf(value)
      .map(([, row]) =>
        entriesOf(row)
          .map(([, field]) => toText(field))
          .join(delimiter),
      )
      .join("\n");
  }
  throw invalid("to");
}

/**
 * `:deserialize $text from=json` (objects become arrays with keys), or `from=dsv`: one array per line, split at
 * `delimiter`; without `options=dsv.plain` the first line names the fields and each other line is an array
 * with those keys.
 */
function deserialize(text: string, named: Named): RosValue {
  const from = named.has("from") ? toText(named.get("from") ?? null) : undefined;
  if (from === undefined) throw missing("from");
  if (from === "json") {
    try {
      return fromJson(JSON.parse(text));
    } catch {
      throw new RouterOsError("failure: invalid JSON");
    }
  }
  if (from !== "dsv") throw invalid("from");
  const delimiter = delimiterOf(named);
  const rows = text
    .split(/\r?\n/)
    .filter((line) => line !== "")
    .map((line) => line.split(delimiter));
  if (options(named).includes("dsv.plain")) return rows;
  const [header = [], ...rest] = rows;
  return rest.map((row) => arrayOf(header.map((key, index) => [key, row[index] ?? ""])));
}
