/**
 * One simulated RouterOS v7 device: its configuration tree, log, backups and clock. It is the `CommandHost`
 * the RouterOS interpreter runs scripts against.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ScriptOutcome } from "../../contract/routers/router-backend.js";
import { RouterOsError } from "../errors.js";
import type { BackgroundJob, CommandCall, CommandHost, CommandResult } from "../language/host.js";
import { runScript } from "../runtime/interpreter.js";
import type { Cell } from "../runtime/scope.js";
import { allMenus } from "./all-menus.js";
import { catalog, menuAt } from "./catalog.js";
import { parseId } from "./convert.js";
import { derivedTables, refreshDerived, sourceTables } from "./derived.js";
import { exportConfig } from "./export.js";
import { genericBuiltins } from "./generic.js";
import { DiskIds, FILE_TABLE, fileTable } from "./menus/file.js";
import { menus } from "./menus/index.js";
import { anyInterface } from "./menus/targets.js";
import { defaultCommands } from "./models/defconf.js";
import { radioPorts, serialPorts } from "./models/hardware.js";
import { DEFAULT_MODEL, modelNamed, type RouterModel } from "./models/index.js";
import { print } from "./print.js";
import { hash32, SeededRandom } from "./random.js";
import { runDueTasks } from "./scheduler.js";
import type { LogEntry, RefTarget, RouterState } from "./schema.js";
import { JOB_TABLE, ScriptJobs } from "./script-jobs.js";
import {
  type ConfigState,
  persistedValue,
  type RouterSnapshot,
  revivedValue,
  routerSnapshotSchema,
} from "./snapshot.js";
import { type Item, Table } from "./table.js";
import { badCommand, genericVerbs, readOnlyVerbs, UNSET_WORD } from "./verbs.js";

const genericBuiltinRows = new Map(genericBuiltins());

export interface SimulatedRouterOptions {
  /** The identity of a reset router. @default "MikroTik" */
  readonly name?: string;
  /** Makes derived values (MAC addresses, ARP neighbours) differ between routers. @default name */
  readonly seedText?: string;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /** Called before each command: the back end's latency and fault injection. */
  readonly beforeCommand?: (call: CommandCall) => void | Promise<void>;
  /** Real milliseconds per `:delay` millisecond. @default 1 */
  readonly delayScale?: number;
  /** Statements one script may execute before it is stopped (see RunOptions). @default 1,000,000 */
  readonly maxScriptStatements?: number;
  /** The board: a catalog name or alias (`hEX`, `RB5009UG+S+IN`), or a model. @default the five-port CHR */
  readonly model?: string | RouterModel;
  /**
   * Whether a new router starts from its model's default configuration (defconf), as a device out of the box
   * does; false is a router after `/system reset-configuration no-defaults=yes`. @default true
   */
  readonly defaults?: boolean;
}

/** RouterOS keeps 1000 lines in its memory log by default. */
const logLimit = 1000;
const snapshotLogTail = 100;
/**
 * Backups a router keeps; saving one more removes the oldest, as a full flash would force an operator to.
 * Every snapshot carries all backups, so without a bound a busy router's persisted state would grow forever.
 */
export const backupLimit = 50;

const formatTime = (at: Date) => at.toISOString().slice(0, 19).replace("T", " ");

/** A global as a snapshot keeps it: code does not outlive the process, as `do={...}` functions do not. */

export class SimulatedRouter implements CommandHost, RouterState {
  readonly catalog = catalog;
  readonly seedText: string;
  readonly numbering = new Map<string, readonly number[]>();
  private tables = new Map<string, Table>();
  private entries: LogEntry[] = [];
  private nextLogId = 1;
  private backups = new Map<string, ConfigState>();
  private files = new Map<string, string>();
  private diskIds = DiskIds.empty();
  private clockOffsetMs = 0;
  private scriptRandom: SeededRandom | undefined;
  private rebootRequested = false;
  /** A reboot happened and the `start-time=startup` scheduler tasks have not run yet. */
  private startupPending = false;
  /** `:global` variables: every script on this router shares them, and only a reboot clears them. */
  private readonly globals = new Map<string, Cell>();
  /** Derived items are recomputed when next read, not after every change: replaying an export stays linear. */
  private derivedStale = false;
  private readonly baseNow: () => Date;
  private bootedAtMs: number;
  private readonly jobs = new ScriptJobs(this);
  private currentModel: RouterModel;

  constructor(private readonly options: SimulatedRouterOptions = {}) {
    this.seedText = options.seedText ?? options.name ?? "MikroTik";
    this.baseNow = options.now ?? (() => new Date());
    this.bootedAtMs = this.baseNow().getTime();
    const model = options.model ?? DEFAULT_MODEL;
    this.currentModel = typeof model === "string" ? modelNamed(model) : model;
    this.reset();
    if (options.defaults !== false) this.applyDefaults();
  }

  /** The board this router is; a restored snapshot brings its own. */
  get model(): RouterModel {
    return this.currentModel;
  }

  /** The configuration of a router after `/system reset-configuration no-defaults=yes`. */
  reset(): void {
    this.tables = new Map();
    this.numbering.clear();
    for (const menu of menus) {
      // Hardware the model lacks (a switch chip, a RouterBOARD) has no menu to fill.
      if (menu.requires && !menu.requires(this)) continue;
      const table = this.table(menu.table);
      const builtins = menu.builtins?.(this) ?? [];
      if (menu.singleton) {
        if (table.items.length > 0) continue;
        const initial: Record<string, string> =
          menu.path.join(" ") === "system identity"
            ? { name: this.options.name ?? "MikroTik" }
            : (builtins[0] ?? {});
        table.insert({ ...initial }, { base: initial });
        continue;
      }
      for (const values of builtins) table.insert({ ...values }, { base: values });
    }
    this.table("user").insert({ name: "admin", group: "full" });
    // The loopback interface every RouterOS v7 router has; not in a menu of its own, so never exported.
    const lo = { name: "lo", "default-name": "lo", type: "loopback", "mac-address": "00:00:00:00:00:00" };
    this.table("interface").insert({ ...lo, mtu: "65536" }, { base: { ...lo, mtu: "65536" } });
    // Radios and the serial port live in menus the catalog makes (`/interface wifi`, `/interface wireless`,
    // `/port`), which have no hand-written built-ins: the model's are added here.
    for (const values of radioPorts(this.model, this.seedText))
      this.table("interface").insert({ ...values }, { base: values });
    for (const values of serialPorts(this.model))
      this.table("generic:port").insert({ ...values }, { base: values });
  }

  /**
   * The model's default configuration, as its defconf script leaves it: each command runs through the menus'
   * own verbs, so defaults are checked (references, unique names) as anything a script writes.
   */
  private applyDefaults(): void {
    const macOf = (port: string) => this.resolve(anyInterface, port)?.values["mac-address"] ?? "";
    for (const command of defaultCommands(this.model, macOf)) {
      const result = this.dispatch({
        menu: command.path.split(" "),
        verb: command.verb,
        positional: [],
        named: new Map(Object.entries(command.args)),
        line: 0,
        column: 0,
      });
      if (result instanceof Promise)
        throw new Error(`defconf command ${command.path} ${command.verb} is not synchronous`);
    }
  }

  hasTable(key: string): boolean {
    return this.tables.has(key);
  }

  table(key: string): Table {
    // `/file` lists the disk as it is now: export files and backups live outside the configuration.
    if (key === FILE_TABLE) return fileTable(this.files, this.backups, this.diskIds);
    if (this.derivedStale && derivedTables.has(key)) {
      this.derivedStale = false;
      refreshDerived(this);
    }
    let table = this.tables.get(key);
    if (!table) {
      table = Table.empty();
      this.tables.set(key, table);
      // A generic menu's built-in items appear when it is first used: most routers never read them.
      for (const values of genericBuiltinRows.get(key) ?? []) table.insert({ ...values }, { base: values });
    }
    return table;
  }

  resolve(target: RefTarget, name: string): Item | undefined {
    const id = parseId(name);
    return this.table(target.table).items.find(
      (item) =>
        (id === undefined ? item.values.name === name : item.id === id) &&
        (!target.scope || item.values[target.scope.prop] === target.scope.value),
    );
  }

  nameOf(target: RefTarget, id: number): string | undefined {
    return this.table(target.table).get(id)?.values.name;
  }

  /** `:resolve`: the router's own static DNS entries answer (it reaches no DNS server). */
  resolveName(name: string): string | undefined {
    const wanted = name.toLowerCase();
    const entry = this.table("ip-dns-static").items.find(
      (item) =>
        item.values.disabled !== "yes" &&
        (item.values.name ?? "").toLowerCase() === wanted &&
        (item.values.address ?? "") !== "",
    );
    return entry?.values.address;
  }

  now(): Date {
    return new Date(this.baseNow().getTime() + this.clockOffsetMs);
  }

  /** `:rndnum`, `:rndstr`: seeded by the router's seed text, so a run gives the same values every time. */
  random(): number {
    this.scriptRandom ??= new SeededRandom(hash32(this.seedText, "script random"));
    return this.scriptRandom.next();
  }

  uptimeMs(): number {
    return Math.max(0, this.baseNow().getTime() - this.bootedAtMs);
  }

  setClock(at: Date): void {
    this.clockOffsetMs = at.getTime() - this.baseNow().getTime();
  }

  get logEntries(): readonly LogEntry[] {
    return this.entries;
  }

  log(topics: readonly string[], message: string): void {
    this.entries.push({
      id: this.nextLogId++,
      time: formatTime(this.now()),
      topics: topics.join(","),
      message,
    });
    if (this.entries.length > logLimit) this.entries.splice(0, this.entries.length - logLimit);
  }

  async delay(ms: number, signal?: AbortSignal): Promise<void> {
    const real = ms * (this.options.delayScale ?? 1);
    if (real > 0) await sleep(real, undefined, signal ? { signal, ref: !this.jobs.isJob(signal) } : {});
  }

  execute(call: CommandCall): CommandResult | Promise<CommandResult> {
    const before = this.options.beforeCommand?.(call);
    if (before instanceof Promise) return before.then(() => this.dispatch(call));
    return this.dispatch(call);
  }

  private dispatch(call: CommandCall): CommandResult | Promise<CommandResult> {
    if (!catalog.hasCommand(call.menu, call.verb)) {
      throw badCommand(
        catalog.isMenu(call.menu) ? call.verb : (call.menu[call.menu.length - 1] ?? call.verb),
      );
    }
    // A parsed script was checked already; a command from the API view was not.
    for (const name of call.named.keys()) {
      const unset = name.startsWith(UNSET_WORD) && (call.verb === "set" || call.verb === "add");
      if (!catalog.hasArgument(call.menu, call.verb, unset ? name.slice(UNSET_WORD.length) : name))
        throw new RouterOsError("expected end of command");
    }
    if (call.verb === "export") {
      const output = exportConfig(allMenus(), call.menu, this);
      const file = call.named.get("file");
      if (typeof file !== "string" || file === "") return { output };
      this.writeFile(file.endsWith(".rsc") ? file : `${file}.rsc`, output.join("\n"));
      return {};
    }
    const menu = menuAt(call.menu);
    if (!menu) throw badCommand(call.verb);
    // The console of a board without the hardware has no such menu.
    if (menu.requires && !menu.requires(this)) throw badCommand(menu.path[menu.path.length - 1] ?? call.verb);
    const custom = menu.verbs?.[call.verb];
    if (custom) return custom.run(call, this, menu);
    const verb = call.verb === "print" ? print : genericVerbs[call.verb as keyof typeof genericVerbs];
    // Commands RouterOS has that act on hardware or traffic (`monitor`, `ping`): the console knows them,
    // the simulator does not run them.
    if (!verb) throw new RouterOsError(`failure: ${call.verb} is not available on the simulated router`);
    const result = verb(call, this, menu);
    if (!readOnlyVerbs.has(call.verb) && sourceTables.has(menu.table)) this.derivedStale = true;
    return result;
  }

  private configState(): ConfigState {
    for (const key of derivedTables) this.table(key);
    // A table only read (a print of an empty menu) holds nothing worth keeping.
    const kept = [...this.tables].filter(
      ([key, table]) => key !== JOB_TABLE && (table.items.length > 0 || table.state().nextId > 1),
    );
    return Object.fromEntries(kept.map(([key, table]) => [key, table.state()]));
  }

  private applyConfig(config: ConfigState): void {
    this.tables = new Map(Object.entries(config).map(([key, state]) => [key, Table.from(state)]));
    this.numbering.clear();
    this.derivedStale = false;
  }

  saveBackup(name: string): string {
    const file = name.endsWith(".backup") ? name : `${name}.backup`;
    this.backups.delete(file);
    this.backups.set(file, this.configState());
    this.diskIds.idOf(file);
    for (const oldest of [...this.backups.keys()].slice(0, Math.max(0, this.backups.size - backupLimit))) {
      this.backups.delete(oldest);
      this.diskIds.forget(oldest);
      this.log(["system", "warning"], `backup ${oldest} removed to make room`);
    }
    this.log(["system", "info"], `configuration backup saved to ${file}`);
    return file;
  }

  loadBackup(name: string): void {
    const state = this.backups.get(name) ?? this.backups.get(`${name}.backup`);
    if (!state) throw new RouterOsError("failure: no such file");
    // Ids handed out since the backup was taken stay spent: a listed id never comes to name another item.
    const spent = [...this.tables].map(([key, table]) => [key, table.state().nextId] as const);
    this.applyConfig(structuredClone(state));
    for (const [key, nextId] of spent) this.table(key).reserveIds(nextId);
    this.log(["system", "info"], `configuration restored from ${name}`);
  }

  /** A text file on the router's disk, as `/export file=` writes one (the newest `backupLimit` are kept). */
  writeFile(name: string, text: string): void {
    this.files.delete(name);
    this.files.set(name, text);
    this.diskIds.idOf(name);
    for (const oldest of [...this.files.keys()].slice(0, Math.max(0, this.files.size - backupLimit))) {
      this.files.delete(oldest);
      this.diskIds.forget(oldest);
    }
  }

  readFile(name: string): string | undefined {
    return this.files.get(name);
  }

  /** `/file remove`: an export file or a backup; false when the router has no such file. */
  removeFile(name: string): boolean {
    const removed = this.files.delete(name) || this.backups.delete(name);
    if (removed) this.diskIds.forget(name);
    return removed;
  }

  /**
   * `/system reset-configuration`: the configuration of a reset router, with the users kept when asked
   * (`keep-users=yes`) and the model's defaults unless `no-defaults=yes`. Files and backups stay on the disk,
   * as on a device.
   */
  resetConfiguration(options: { readonly keepUsers: boolean; readonly noDefaults: boolean }): void {
    const users = this.table("user").state();
    this.reset();
    this.derivedStale = false;
    if (!options.noDefaults) this.applyDefaults();
    if (options.keepUsers) this.tables.set("user", Table.from(users));
    this.numbering.clear();
  }

  get backupNames(): readonly string[] {
    return [...this.backups.keys()];
  }

  requestReboot(): void {
    this.rebootRequested = true;
  }

  /** Whether a reboot was asked for since the last call (the back end then takes the router offline). */
  takeRebootRequest(): boolean {
    const requested = this.rebootRequested;
    this.rebootRequested = false;
    return requested;
  }

  /** `:execute`: a background script job, listed in `/system script job` while it runs. */
  startJob(job: BackgroundJob): string {
    return this.jobs.start(job);
  }

  stopJob(id: number): void {
    this.jobs.stop(id);
  }

  /** Resolves when no background job runs (tests wait for `:execute` this way, never by sleeping). */
  jobsIdle(): Promise<void> {
    return this.jobs.idle();
  }

  /** What a restart forgets: the numbering of the last prints, the global variables and running jobs. */
  reboot(): void {
    this.jobs.stopAll();
    this.numbering.clear();
    this.globals.clear();
    this.bootedAtMs = this.baseNow().getTime();
    this.startupPending = true;
    this.log(["system", "info"], "router rebooted");
  }

  /** Runs the scheduler tasks due on the router's clock (and the startup ones after a reboot): scheduler.ts. */
  async runScheduler(): Promise<number> {
    const startup = this.startupPending;
    this.startupPending = false;
    return runDueTasks(this, startup);
  }

  async runSource(source: string): Promise<readonly string[]> {
    return (await runScript(source, this, { globals: this.globals })).output;
  }

  /**
   * Runs a script; a RouterOS failure is reported with the output printed before it, and logged with topics
   * `script,error` as the router does. An abort (the signal's reason) is thrown.
   */
  async runScript(source: string, signal?: AbortSignal): Promise<ScriptOutcome> {
    const output: string[] = [];
    try {
      await runScript(source, this, {
        signal,
        globals: this.globals,
        onOutput: (line) => output.push(line),
        ...(this.options.maxScriptStatements ? { maxStatements: this.options.maxScriptStatements } : {}),
      });
      return { ok: true, output: output.join("\n") };
    } catch (error) {
      if (!(error instanceof RouterOsError)) throw error;
      this.log(["script", "error"], error.message);
      const line = error.line === undefined ? {} : { line: error.line };
      return { ok: false, output: output.join("\n"), error: error.message, ...line };
    }
  }

  snapshot(): RouterSnapshot {
    return {
      version: 1,
      model: this.model.name,
      config: this.configState(),
      backups: Object.fromEntries(this.backups),
      log: this.entries.slice(-snapshotLogTail),
      nextLogId: this.nextLogId,
      clockOffsetMs: this.clockOffsetMs,
      globals: Object.fromEntries(
        [...this.globals].map(([name, cell]) => [name, persistedValue(cell.value)]),
      ),
      ...(this.files.size > 0 ? { files: Object.fromEntries(this.files) } : {}),
      fileIds: this.diskIds.state(),
    };
  }

  /** Restores what `snapshot()` returned; throws a zod error naming the bad field for a corrupt state. */
  restore(state: unknown): void {
    const snapshot = routerSnapshotSchema.parse(state);
    // A snapshot taken before routers had models is of the five-port router they all were.
    this.currentModel = snapshot.model === undefined ? DEFAULT_MODEL : modelNamed(snapshot.model);
    this.applyConfig(structuredClone(snapshot.config));
    this.backups = new Map(Object.entries(structuredClone(snapshot.backups)));
    this.entries = [...snapshot.log];
    this.nextLogId = snapshot.nextLogId;
    this.clockOffsetMs = snapshot.clockOffsetMs;
    this.globals.clear();
    for (const [name, value] of Object.entries(snapshot.globals ?? {}))
      this.globals.set(name, { value: revivedValue(value) });
    this.files = new Map(Object.entries(snapshot.files ?? {}));
    this.diskIds = DiskIds.from(snapshot.fileIds, [...this.files.keys(), ...this.backups.keys()]);
  }
}
