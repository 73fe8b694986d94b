/**
 * The generic menu model: a `MenuDef` for any RouterOS menu, made from the RouterOS 7.24 catalog. A menu
 * with `add` is a list (add, set, remove, print, find, get, export, enable, disable, comment, move as
 * RouterOS lists them); one whose `set` names no item is a settings menu (set, print, export). Values are
 * checked where RouterOS describes them (addresses, integer ranges, enumerations, time intervals), and
 * arguments that name interfaces or interface lists are references, as the hand-written menus have them.
 *
 * Hand-written menus (`menus/*.ts`) keep their behaviour; `withCatalog` adds the arguments RouterOS has and
 * they do not declare, so a real export's `arp-timeout=` or `broadcast-flood=` is stored and exported back.
 */
import { type RouterOsCatalog, routerOsCatalog, type ValueKind } from "../catalog/index.js";
import { anyInterface, interfaceList } from "./menus/targets.js";
import { type CustomVerb, commonProps, type MenuDef, type PropDef, type ValueType } from "./schema.js";

/** Arguments of a command that are no property of the items (where a new item goes, which one changes). */
const notProperties = new Set(["numbers", "copy-from", "place-before", "number", "value-name"]);

/** Arguments that name an interface or a list of them; RouterOS's special words are kept as written. */
const interfaceRefs: Readonly<Record<string, PropDef>> = {
  interface: { type: { kind: "ref", target: anyInterface, also: ["all", "none"] } },
  "master-interface": { type: { kind: "ref", target: anyInterface, also: ["none"] } },
  "in-interface": { type: { kind: "ref", target: anyInterface }, negatable: true },
  "out-interface": { type: { kind: "ref", target: anyInterface }, negatable: true },
  "interface-list": { type: { kind: "ref", target: interfaceList } },
  "allowed-interface-list": { type: { kind: "ref", target: interfaceList } },
  "in-interface-list": { type: { kind: "ref", target: interfaceList }, negatable: true },
  "out-interface-list": { type: { kind: "ref", target: interfaceList }, negatable: true },
};

/**
 * Arguments that hold a secret (a WireGuard private key, a PPP or RADIUS secret, a Wi-Fi passphrase). RouterOS 7
 * leaves them out of `export` unless asked with `show-sensitive`, and out of `print`; so does the simulator,
 * and a secret never reaches a job's output or a log.
 */
const SECRET_ARGUMENT =
  /(?:^|-)(?:password|passphrase|secret|private-key|pre-?shared-key|psk|authentication-key)$/;

/** Names RouterOS gives new interfaces of a type when `add` names none (`/interface gre add` -> gre-tunnel1). */
const interfaceAutoNames: Readonly<Record<string, string>> = {
  eoip: "eoip-tunnel",
  eoipv6: "eoipv6-tunnel",
  gre: "gre-tunnel",
  gre6: "gre6-tunnel",
  ipip: "ipip-tunnel",
  ipipv6: "ipipv6-tunnel",
  "pppoe-client": "pppoe-out",
  "l2tp-client": "l2tp-out",
  "sstp-client": "sstp-out",
  "ovpn-client": "ovpn-out",
  "pptp-client": "pptp-out",
};

/** RouterOS's description of a value -> the simulator's value type (plain text where it says nothing). */
export function valueTypeOf(kind: ValueKind | undefined): { type: ValueType; list?: boolean } {
  switch (kind?.kind) {
    case "ip":
    case "ip-range":
      // RouterOS takes `10.0.0.1/24` and ranges where it says "IP address"; garbage still fails.
      return { type: { kind: "ip-match" } };
    case "ip-prefix":
      return { type: { kind: "ip-prefix" } };
    case "ipv6-prefix":
      return { type: { kind: "ipv6-prefix" } };
    case "mac":
      return { type: { kind: "mac" } };
    case "time":
      return { type: { kind: "interval" } };
    case "int":
      return { type: { kind: "int", min: kind.min, max: kind.max } };
    case "enum":
      return { type: { kind: "enum", values: kind.values }, list: kind.list };
    default:
      return { type: { kind: "string" } };
  }
}

function propertyOf(catalog: RouterOsCatalog, path: readonly string[], name: string): PropDef {
  if (name === "disabled") return commonProps.disabled;
  if (name === "comment") return commonProps.comment;
  const reference = interfaceRefs[name];
  if (reference) return reference;
  const { type, list } = valueTypeOf(catalog.kindOf(path, name));
  return { type, ...(list ? { list } : {}), ...(SECRET_ARGUMENT.test(name) ? { sensitive: true } : {}) };
}

/** The properties RouterOS lets `add` and `set` write in the menu at `path`. */
export function catalogProperties(path: readonly string[]): Record<string, PropDef> {
  const catalog = routerOsCatalog();
  const names = new Set([
    ...(catalog.argumentsOf(path, "add") ?? []),
    ...(catalog.argumentsOf(path, "set") ?? []),
  ]);
  const properties: Record<string, PropDef> = {};
  for (const name of [...names].sort()) {
    if (!notProperties.has(name)) properties[name] = propertyOf(catalog, path, name);
  }
  return properties;
}

/** Whether the menu at `path` creates interfaces (`/interface wireguard`): they share the interface table. */
export function isInterfaceType(path: readonly string[]): boolean {
  const catalog = routerOsCatalog();
  return (
    path.length === 2 && path[0] === "interface" && (catalog.argumentsOf(path, "add") ?? []).includes("name")
  );
}

const builtinName: PropDef = { type: { kind: "string" }, readOnly: true };
const servicePort = (name: string, ports?: string) => ({ name, ...(ports ? { ports } : {}), disabled: "no" });

/**
 * Items every RouterOS 7.24 has in a menu without hand-written behaviour, by their names (`set ftp
 * disabled=yes`, `set memory memory-lines=500`). The helpers' ports are RouterOS's defaults.
 */
const BUILTIN_ITEMS: Readonly<Record<string, readonly Record<string, string>[]>> = {
  "ip firewall service-port": [
    servicePort("ftp", "21"),
    servicePort("tftp", "69"),
    servicePort("irc", "6667"),
    servicePort("h323"),
    servicePort("sip", "5060,5061"),
    servicePort("pptp"),
    servicePort("rtsp", "554"),
    servicePort("udplite"),
    servicePort("dccp"),
    servicePort("sctp"),
  ],
  "system logging action": [
    { name: "memory", target: "memory" },
    { name: "disk", target: "disk" },
    { name: "echo", target: "echo" },
    { name: "remote", target: "remote" },
  ],
};

/**
 * Values a generic settings menu shows but no command sets (RouterOS's tree lists only what `set` takes). The
 * simulated router reaches no cloud: with DDNS off, as after a reset, RouterOS has no address or name there.
 */
const READ_ONLY_VALUES: Readonly<Record<string, readonly string[]>> = {
  "ip cloud": ["public-address", "public-address-ipv6", "dns-name"],
};

/**
 * Verbs of generic menus the simulated router can run honestly: `/ip dns cache flush` has nothing to flush (the
 * router reaches no DNS server, so it caches no answer).
 */
const GENERIC_VERBS: Readonly<Record<string, Readonly<Record<string, CustomVerb>>>> = {
  "ip dns cache": { flush: { arguments: [], run: () => ({}) } },
};

/** The built-in items of generic menus, by table: a reset router has them (generic menus have no reset). */
export function genericBuiltins(): readonly (readonly [
  table: string,
  rows: readonly Record<string, string>[],
])[] {
  return Object.entries(BUILTIN_ITEMS).map(([path, rows]) => [`generic:${path}`, rows] as const);
}

/** A menu the simulator has no hand-written declaration for, from the catalog alone. */
export function genericMenu(path: readonly string[]): MenuDef {
  const catalog = routerOsCatalog();
  const commands = new Set(catalog.commandsOf(path) ?? []);
  const builtins = BUILTIN_ITEMS[path.join(" ")];
  const own: Record<string, PropDef> = { ...catalogProperties(path) };
  for (const name of READ_ONLY_VALUES[path.join(" ")] ?? [])
    own[name] = { type: { kind: "string" }, readOnly: true };
  // Built-in items are named even where RouterOS gives no argument to name one (`service-port`).
  const properties = builtins && own.name === undefined ? { ...own, name: builtinName } : own;
  const setNames = catalog.argumentsOf(path, "set") ?? [];
  const singleton = !commands.has("add") && !setNames.includes("numbers");
  const base = {
    path,
    table: `generic:${path.join(" ")}`,
    properties,
    generic: true,
    ...(singleton ? { singleton: true } : {}),
    ...(commands.has("add") ? {} : { canAdd: false }),
    ...(commands.has("remove") ? {} : { canRemove: false }),
    ...(commands.has("move") ? { ordered: true } : {}),
    ...(properties.name ? { key: "name" } : {}),
    ...(GENERIC_VERBS[path.join(" ")] ? { verbs: GENERIC_VERBS[path.join(" ")] } : {}),
  } satisfies MenuDef;
  if (!isInterfaceType(path)) return base;
  const type = path[1] ?? "";
  return {
    ...base,
    table: "interface",
    scope: { prop: "type", value: type },
    autoName: interfaceAutoNames[type] ?? type,
    unique: [{ keys: ["name"], error: "failure: already have interface with such name" }],
    properties: { ...properties, type: { type: { kind: "string" }, readOnly: true } },
  };
}

/** A hand-written menu plus the arguments RouterOS has that it does not declare (stored as written). */
export function withCatalog(menu: MenuDef): MenuDef {
  if (!routerOsCatalog().isMenu(menu.path)) return menu;
  const extra = Object.entries(catalogProperties(menu.path)).filter(
    ([name]) => menu.properties[name] === undefined && menu.virtual?.[name] === undefined,
  );
  if (extra.length === 0) return menu;
  return { ...menu, properties: { ...menu.properties, ...Object.fromEntries(extra) } };
}
