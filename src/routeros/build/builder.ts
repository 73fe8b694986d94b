/** Builds one RouterOS command line from typed values, for constructs and tests. */
import { UsageError } from "../../errors.js";
import { FLAG_WORDS } from "../language/parser.js";
import { quoteString, quoteValue } from "../language/quote.js";

export type BuildValue = string | number | boolean;

export interface BuildOptions {
  /** Unnamed arguments after the verb (`set ether1 ...`, `remove 0`). */
  readonly positional?: readonly BuildValue[];
  /** Selects items by property: `set [find name="x"] ...`. Written before any positional argument. */
  readonly find?: Readonly<Record<string, BuildValue>>;
}

// A name starting with a dot is no name of its own: RouterOS reads `.ssid=` as a member of the group before it.
const PROPERTY = /^[a-z0-9-][a-z0-9.-]*$/;
const MENU_WORD = /^[a-z0-9][a-z0-9-]*$/;

function render(value: BuildValue, where: string): string {
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new UsageError(`${where} must be a finite number (got ${value})`);
    return String(value);
  }
  return quoteValue(value);
}

function checkProperty(key: string, command: string): void {
  if (!PROPERTY.test(key)) {
    throw new UsageError(
      `invalid property name ${JSON.stringify(key)} for ${command}: RouterOS property names use only a-z, 0-9, "-" and "." and do not start with "."`,
    );
  }
}

function renderNamed(record: Readonly<Record<string, BuildValue | undefined>>, command: string): string[] {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined) continue;
    checkProperty(key, command);
    parts.push(`${key}=${render(value, `${command} ${key}`)}`);
  }
  return parts;
}

/**
 * `buildCommand(["ip", "address"], "add", { address: "10.0.0.1/24", interface: "ether1" })` gives
 * `/ip address add address=10.0.0.1/24 interface=ether1`. Undefined values are left out; booleans are yes/no.
 */
export function buildCommand(
  menu: readonly string[],
  verb: string,
  named: Readonly<Record<string, BuildValue | undefined>> = {},
  options: BuildOptions = {},
): string {
  for (const word of [...menu, verb]) {
    if (!MENU_WORD.test(word)) {
      throw new UsageError(`invalid menu or command name ${JSON.stringify(word)}: use only a-z, 0-9 and "-"`);
    }
  }
  const command = `/${[...menu, verb].join(" ")}`;
  const parts = [command];
  if (options.find)
    parts.push(
      `[find${renderNamed(options.find, `${command} find`)
        .map((part) => ` ${part}`)
        .join("")}]`,
    );
  for (const value of options.positional ?? []) {
    const text = render(value, `${command} positional`);
    // A bare `detail` or `where` would read back as a flag or a condition, not as a value.
    parts.push(FLAG_WORDS.has(text) || text === "where" ? quoteString(text) : text);
  }
  parts.push(...renderNamed(named, command));
  return parts.join(" ");
}
