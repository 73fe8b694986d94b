/**
 * Which export lines `routerjobs import` writes as a typed helper call (`helpers.vlan({ ... })`) rather than as
 * a raw guarded line. A helper is used for a line when, and only when, it does exactly what the raw guarded
 * line does: the table below says which helper may take a menu's lines and the type of each property it
 * takes, and the helper's own output for the line's values is then compared with the raw guarded line as
 * RouterOS reads both (same commands, same `find` key, same properties, in any order). The helpers' logic is
 * not repeated here: they are called, and what they write is checked.
 *
 * Menus with a helper that is left out, because the helper selects its item by a narrower key than the raw
 * line (an item without a name is guarded by a `find` on all its exported properties) and so would do
 * something else on a router that drifted:
 * - `/interface bridge port`: `bridgePort` finds by `interface` alone, but `bridge=` is always exported too;
 * - `/ip dhcp-server network`: `dhcpNetwork` finds by `address` alone, but `gateway=` is always exported too;
 * - `/ip firewall filter`, `/ip firewall nat`: `firewallFilter` / `firewallNat` find a rule by its comment,
 *   and a rule acts by its place in the chain; an exported rule has no name (often no comment) and is guarded
 *   by all its matchers, so on two rules with one comment, or a rule without one, the helper would update
 *   another rule than the guarded line finds, or none.
 * Such lines stay raw; so do the lines of the mapped menus the comparison rejects (a property the helper
 * does not take, such as `arp-timeout=` on a bridge or `network=` on an address; a key narrower than the
 * line's properties, such as a list member with a `comment=`).
 */

// The same module `routerjobs/constructs` exports as `helpers`, so a name here is the name the written call uses.
import * as HELPERS from "../../routeros/build/helpers/index.js";
import type { CommandNode, Expr, Statement } from "../../routeros/language/ast.js";
import { parseScript } from "../../routeros/language/parser.js";

/** How a property's exported text becomes the helper's typed value. */
type Kind = "string" | "number" | "boolean" | "list";
/** A property's kind, `?` when the helper does not require it. */
type Field = Kind | `${Kind}?`;
type Value = string | number | boolean | readonly string[];

/** The kinds a property of type V may be written as (a union such as `string | readonly string[]` allows both). */
type KindOf<V> =
  | (string extends V ? "string" : never)
  | (number extends V ? "number" : never)
  | (boolean extends V ? "boolean" : never)
  | (readonly string[] extends V ? "list" : never);

/**
 * Every property of the helper's props type P, by RouterOS name, with its kind; `?` when the helper does not
 * require it. Checked against the helper's own type, so a helper that gains or renames a property fails the
 * type check here instead of generating a module that does not compile.
 */
type Fields<P> = {
  readonly [K in keyof P]-?: undefined extends P[K]
    ? `${KindOf<Exclude<P[K], undefined>>}?`
    : KindOf<Exclude<P[K], undefined>>;
};

type Helper = keyof typeof HELPERS;
/** The argument of a helper taking one props object (`dnsServers` also takes a bare list, not written here). */
type PropsOf<N extends Helper> = Exclude<Parameters<(typeof HELPERS)[N]>[0], readonly string[]>;

interface Mapping {
  readonly helper: Helper;
  readonly fields: Readonly<Record<string, Field>>;
  /** The helper takes the one property's value itself (`identity("gw")`), not a props object. */
  readonly single?: true;
}

function props<N extends Exclude<Helper, "identity">>(helper: N, fields: Fields<PropsOf<N>>): Mapping {
  return { helper, fields };
}

/** A helper taking one value, written as that property of the line (`identity` -> `set name=...`). */
function single<N extends "identity">(
  helper: N,
  property: string,
  kind: KindOf<Parameters<(typeof HELPERS)[N]>[0]>,
): Mapping {
  return { helper, fields: { [property]: kind }, single: true };
}

/** `<menu> <verb>` -> the helper that may write its lines. */
const MAPPINGS: ReadonlyMap<string, Mapping> = new Map([
  ["/system identity set", single("identity", "name", "string")],
  ["/ip dns set", props("dnsServers", { servers: "list", "allow-remote-requests": "boolean?" })],
  ["/system ntp client set", props("ntpClient", { servers: "list", enabled: "boolean?" })],
  [
    "/interface bridge add",
    props("bridge", { name: "string", "vlan-filtering": "boolean?", comment: "string?" }),
  ],
  [
    "/interface vlan add",
    props("vlan", { name: "string", "vlan-id": "number", interface: "string", comment: "string?" }),
  ],
  ["/interface list add", props("interfaceList", { name: "string", comment: "string?" })],
  [
    "/interface list member add",
    props("interfaceListMember", { list: "string", interface: "string", comment: "string?" }),
  ],
  ["/ip pool add", props("ipPool", { name: "string", ranges: "string", comment: "string?" })],
  [
    "/ip address add",
    props("ipAddress", { address: "string", interface: "string", comment: "string?", disabled: "boolean?" }),
  ],
  [
    "/ip firewall address-list add",
    props("addressList", { list: "string", address: "string", comment: "string?", timeout: "string?" }),
  ],
  [
    "/ip dhcp-server add",
    props("dhcpServer", {
      name: "string",
      interface: "string",
      "address-pool": "string",
      "lease-time": "string?",
      disabled: "boolean?",
      comment: "string?",
    }),
  ],
]);

export interface HelperLine {
  /** The TypeScript expression written into the module: `helpers.vlan({ name: "vlan10", ... })`. */
  readonly call: string;
  /** The script line it yields: what counts towards the section's size. */
  readonly script: string;
}

/**
 * The helper call for one export line of `menu`, when a helper writes a line that does what `raw` (the line's
 * guarded form) does; undefined when none does, and the raw line is kept.
 */
export function helperLine(menu: string, line: string, raw: string): HelperLine | undefined {
  const command = onlyCommand(`${menu} ${line}`);
  const mapping = command && MAPPINGS.get(`${menu} ${command.verb}`);
  if (!command || !mapping || command.positional.length > 0 || command.where) return undefined;
  const values = new Map<string, Value>();
  for (const { name, value } of command.named) {
    const field = mapping.fields[name];
    // A property the helper does not take: it cannot write the line.
    if (field === undefined || value.type !== "literal" || typeof value.value !== "string") return undefined;
    const typed = typedValue(
      field.endsWith("?") ? (field.slice(0, -1) as Kind) : (field as Kind),
      value.value,
    );
    if (typed === undefined || values.has(name)) return undefined;
    values.set(name, typed);
  }
  const fields = Object.entries(mapping.fields);
  if (fields.some(([name, field]) => !field.endsWith("?") && !values.has(name))) return undefined;
  // In the order of the helper's props type, so the call reads as one written by hand.
  const present = fields.flatMap(([name]) => {
    const value = values.get(name);
    return value === undefined ? [] : [[name, value] as const];
  });
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the constructs re-export every helper anyway
  const run = HELPERS[mapping.helper] as (argument: unknown) => string;
  // A single-value helper has one (required) field: the value is present.
  const [argument, code] = mapping.single
    ? [present[0]?.[1], literal(present[0]?.[1] ?? "")]
    : [
        Object.fromEntries(present),
        `{ ${present.map(([name, value]) => `${propertyName(name)}: ${literal(value)}`).join(", ")} }`,
      ];
  const script = run(argument);
  if (!sameScript(script, raw)) return undefined;
  return { call: `helpers.${mapping.helper}(${code})`, script };
}

/** The exported text as the helper's typed value; undefined when it has no such value (`vlan-id=0x10`). */
function typedValue(kind: Kind, text: string): Value | undefined {
  switch (kind) {
    case "string":
      return text;
    case "list":
      return text.split(",");
    case "boolean":
      return text === "yes" ? true : text === "no" ? false : undefined;
    case "number": {
      const number = Number(text);
      return /^-?\d+$/.test(text) && String(number) === text ? number : undefined;
    }
  }
}

/** A TypeScript literal of the value: JSON is TypeScript, and JSON.stringify escapes what a string needs. */
function literal(value: Value): string {
  return typeof value === "object"
    ? `[${value.map((item) => JSON.stringify(item)).join(", ")}]`
    : JSON.stringify(value);
}

const propertyName = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));

/** The line's one command, as RouterOS reads it; undefined for anything else (or what does not parse). */
function onlyCommand(source: string): CommandNode | undefined {
  const statements = parsed(source);
  const [statement] = statements ?? [];
  return statements?.length === 1 && statement?.kind === "command" ? statement : undefined;
}

function parsed(source: string): readonly Statement[] | undefined {
  try {
    return parseScript(source).body.statements;
  } catch {
    return undefined;
  }
}

/**
 * Whether two scripts are the same commands as RouterOS reads them: positions, the way a value was quoted and
 * the order of named arguments do not count (`add b=2 a="1"` is `add a=1 b=2`).
 */
export function sameScript(a: string, b: string): boolean {
  const left = parsed(a);
  const right = parsed(b);
  return left !== undefined && right !== undefined && canonical(left) === canonical(right);
}

function canonical(statements: readonly Statement[]): string {
  return JSON.stringify(statements, (key, value: unknown) => {
    if (key === "line" || key === "column" || key === "word") return undefined;
    if (key === "named" && Array.isArray(value)) {
      const named = value as readonly { readonly name: string; readonly value: Expr }[];
      return [...named].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    }
    return value;
  });
}
