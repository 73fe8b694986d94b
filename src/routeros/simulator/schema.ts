/**
 * The declarative side of the simulator: what a menu holds (properties and their types, defaults, keys) and
 * how a written value becomes the stored one. Menus in `menus/*.ts` are data built from these types; the
 * generic verbs in `verbs.ts` interpret them.
 */
import type { CommandCall, CommandResult, RosValue } from "../language/host.js";
import type { RouterModel } from "./models/types.js";
import type { Item, Table } from "./table.js";

/** Items of a shared table that one menu shows, e.g. interfaces whose `type` is `bridge`. */
export interface Scope {
  readonly prop: string;
  readonly value: string;
}

/** What a reference points at: named items of a table, optionally of one scope. Stored as the item's id. */
export interface RefTarget {
  readonly table: string;
  readonly scope?: Scope;
}

export type ValueType =
  | { readonly kind: "string" }
  | { readonly kind: "ip" }
  | { readonly kind: "ip-prefix" }
  | { readonly kind: "ipv6-prefix" }
  /** An IPv4 or an IPv6 address (DNS servers). */
  | { readonly kind: "ip46" }
  /** A time interval as RouterOS describes one loosely: `10s`, `20s-60s`, `none`; kept as written. */
  | { readonly kind: "interval" }
  | { readonly kind: "ip-match" }
  | { readonly kind: "host" }
  | { readonly kind: "mac" }
  | { readonly kind: "int"; readonly min: number; readonly max: number }
  /** A size in KiB, written `4096KiB`, `4MiB` or a bare count of KiB, kept as `<n>KiB` (7.x's print). */
  | { readonly kind: "kib"; readonly min: number; readonly max: number }
  | { readonly kind: "enum"; readonly values: readonly string[] }
  | { readonly kind: "bool" }
  | { readonly kind: "time" }
  | { readonly kind: "ports" }
  | { readonly kind: "ref"; readonly target: RefTarget; readonly also?: readonly string[] };

export interface PropDef {
  readonly type: ValueType;
  /** Stored (canonical) default; absent means unset: not printed, not exported. */
  readonly default?: string;
  readonly required?: boolean;
  /** Shown, never written by `add`/`set`, never exported (`type`, `network` of a route...). */
  readonly readOnly?: boolean;
  /** Comma-separated values, each of `type`. */
  readonly list?: boolean;
  /** A leading `!` negates a firewall matcher. */
  readonly negatable?: boolean;
  /** Written but never printed (passwords). */
  readonly sensitive?: boolean;
  /** How the console's print writes the value, where the API gives it typed (bytes as `225.0MiB`). */
  readonly consoleText?: (value: string) => string;
  /** Export writes it even at its default, as RouterOS does (`action=accept`, a route's `distance=1`). */
  readonly exportAlways?: boolean;
}

export interface Flag {
  readonly letter: string;
  /** The record key (`dynamic`, `invalid`, `DHCP`...). */
  readonly name: string;
  readonly test: (item: Item, router: RouterState, menu: MenuDef) => boolean;
}

/** The router as the menus see it. `SimulatedRouter` implements it. */
export interface RouterState {
  /** The board: its ports, radios, switch chips, what `/system resource` reports. */
  readonly model: RouterModel;
  table(key: string): Table;
  /** Whether anything ever stored into the table `key` (export skips menus never touched). */
  hasTable(key: string): boolean;
  now(): Date;
  log(topics: readonly string[], message: string): void;
  /** The named item a reference resolves to. */
  resolve(target: RefTarget, name: string): Item | undefined;
  nameOf(target: RefTarget, id: number): string | undefined;
  /** Per-router seed text, so derived values (neighbours, MACs) differ between routers yet stay stable. */
  readonly seedText: string;
  /** Milliseconds since the router last booted (`/system resource uptime`). */
  uptimeMs(): number;
  /** Sets the router's clock (`/system clock set time=...`). */
  setClock(at: Date): void;
  readonly logEntries: readonly LogEntry[];
  /** Saves a deep copy of the configuration; returns the file name (`x.backup`). */
  saveBackup(name: string): string;
  loadBackup(name: string): void;
  /** A text file on the router's disk (`/export file=` writes them); undefined when there is none. */
  readFile(name: string): string | undefined;
  /** `/file add name=x contents=...`: writes a text file, replacing one of that name. */
  writeFile(name: string, text: string): void;
  /** `/file remove`: false when the router has no such file. */
  removeFile(name: string): boolean;
  /** `/system reset-configuration`: a reset router's configuration, users kept when asked. */
  resetConfiguration(options: { readonly keepUsers: boolean; readonly noDefaults: boolean }): void;
  /** Takes effect when the current script or command ends (the back end takes the router offline). */
  requestReboot(): void;
  /** Stops the background script job with that id (`/system script job remove`). */
  stopJob(id: number): void;
  /** Runs RouterOS source on this router (`/system script run`); returns what it printed. */
  runSource(source: string): Promise<readonly string[]>;
  /** Item ids in the order of each menu's last print, so `set 0 ...` means what the user saw. */
  readonly numbering: Map<string, readonly number[]>;
}

export interface LogEntry {
  readonly id: number;
  /** `2026-11-22 17:22:28`, the router's clock. */
  readonly time: string;
  /** Comma-separated, as RouterOS prints them: `script,error`. */
  readonly topics: string;
  readonly message: string;
}

export type VerbHandler = (
  call: CommandCall,
  router: RouterState,
  menu: MenuDef,
) => CommandResult | Promise<CommandResult>;

export interface MenuDef {
  readonly path: readonly string[];
  /** Storage key; menus sharing one (the interface views) share items and ids. */
  readonly table: string;
  readonly singleton?: boolean;
  readonly properties: Readonly<Record<string, PropDef>>;
  /** Items are addressable by this property (`set ether1 ...`). */
  readonly key?: string;
  /** `add` without a name picks `<autoName><n>` with the lowest free n (bridge1, vlan1, dhcp1). */
  readonly autoName?: string;
  readonly scope?: Scope;
  readonly unique?: readonly { readonly keys: readonly string[]; readonly error: string }[];
  /** @default true for tables */
  readonly canAdd?: boolean;
  /** @default true for tables; false where items are hardware or fixed (ethernet ports, services) */
  readonly canRemove?: boolean;
  /** Order is significant (firewall): `move` and `place-before` are accepted. */
  readonly ordered?: boolean;
  /** Columns of the table form of `print`; without them `print` uses the detail form (as firewall does). */
  readonly columns?: readonly string[];
  /** Rule-like menus print only what was written, plus these (`chain`, `action`), as the firewall does. */
  readonly sparsePrint?: readonly string[];
  /**
   * Of a sparse menu, what the API's print gives besides (a rule's `log=false`, `log-prefix=` and counters),
   * where the console's print leaves them out.
   */
  readonly apiAlways?: readonly string[];
  /** Of a sparse menu, properties shown at their default where the item calls for them (a mark's passthrough). */
  readonly shownWhen?: Readonly<Record<string, (values: Readonly<Record<string, string>>) => boolean>>;
  readonly flags?: readonly Flag[];
  /** @default true */
  readonly exported?: boolean;
  /** Items a reset router has (ether1..ether5, services); they cannot be removed and export as `set`. */
  readonly builtins?: (router: RouterState) => Record<string, string>[];
  /** How `export` addresses a built-in item it changes: `[ find default-name=ether1 ]`. */
  readonly exportSelector?: (item: Item) => string;
  /** Cross-property rules and derived values, run on the merged values before a change is stored. */
  readonly complete?: (values: Record<string, string>, router: RouterState) => void;
  /** Properties computed from the router rather than stored (`/system clock time`). */
  readonly virtual?: Readonly<Record<string, VirtualProp>>;
  /** Verbs beyond the generic ones (`save`, `load`, `run`, `reboot`), or replacing one (`/log print`). */
  readonly verbs?: Readonly<Record<string, CustomVerb>>;
  /** Made from the RouterOS catalog alone (`generic.ts`), with no hand-written behaviour. */
  readonly generic?: boolean;
  /**
   * Hardware the menu needs (`/system routerboard` on a RouterBOARD, `/interface ethernet switch` where there
   * is a chip): on a model without it the menu is not there, as on that board's console.
   */
  readonly requires?: (router: RouterState) => boolean;
}

export interface CustomVerb {
  readonly run: VerbHandler;
  /** Its named arguments and flags, as the console completes them; a script naming another fails to parse. */
  readonly arguments: readonly string[];
}

export interface VirtualProp {
  get(router: RouterState): string;
  set(router: RouterState, value: string): void;
}

/** Properties every list item has. */
export const commonProps = {
  comment: { type: { kind: "string" } },
  disabled: { type: { kind: "bool" }, default: "no" },
} as const satisfies Record<string, PropDef>;

export const bool = (fallback: "yes" | "no"): PropDef => ({ type: { kind: "bool" }, default: fallback });
export const str = (fallback?: string): PropDef => ({ type: { kind: "string" }, default: fallback });
export const int = (min: number, max: number, fallback?: number): PropDef => ({
  type: { kind: "int", min, max },
  default: fallback === undefined ? undefined : String(fallback),
});
export const kib = (min: number, max: number, fallback: number): PropDef => ({
  type: { kind: "kib", min, max },
  default: `${fallback}KiB`,
});
export const oneOf = (values: readonly string[], fallback?: string): PropDef => ({
  type: { kind: "enum", values },
  default: fallback,
});
export const ref = (target: RefTarget, extra?: Partial<PropDef>): PropDef => ({
  type: { kind: "ref", target },
  ...extra,
});

/** Turns what a script wrote into a plain text (`{a;b}` arrays become comma lists as RouterOS does). */
export function valueText(value: RosValue): string {
  if (value === null) return "";
  if (Array.isArray(value)) return value.map((v) => valueText(v)).join(",");
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}
