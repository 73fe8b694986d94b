/**
 * The seam between the RouterOS language (lexer, parser, interpreter in `src/routeros`) and whatever holds a
 * configuration (the simulated router in `src/routeros/simulator`, or a test host). The language knows
 * syntax and evaluation; the host knows menus, items and their rules.
 */

import type { RosCode } from "./code-value.js";

/**
 * A value after evaluation. Arrays come from `[find]` (lists of ids) and `{a;b}` literals; code comes from
 * `:parse` and never leaves the language (a host sees it as its source text).
 */
export type RosValue = string | number | boolean | RosCode | readonly RosValue[] | null;

/** Properties of one configuration item as the `where` clause sees them (RouterOS names, string values). */
export type ItemProperties = Readonly<Record<string, string>>;

/**
 * Tells the parser which words name menus and which name commands, so it can split `/ip address add x=1`, and
 * which arguments each command takes, so a misspelled one fails the whole script before anything runs.
 */
export interface CommandCatalog {
  /** True when `path` (absolute, e.g. `["ip", "address"]`) is a menu. The root `[]` is a menu. */
  isMenu(path: readonly string[]): boolean;
  /** True when `verb` is a command of the menu at `path` (e.g. `["ip","address"]`, `"add"`). */
  hasCommand(path: readonly string[], verb: string): boolean;
  /**
   * True when that command takes the argument `name`: `address=` of `/ip address add`, the flag `detail` or the
   * keyword `where` of `print`. A bare flag word the command does not take is read as an unnamed argument.
   */
  hasArgument(path: readonly string[], verb: string, name: string): boolean;
  /**
   * Optional: the names of the menus and commands directly under `path`. With it, the parser accepts unique
   * abbreviations as the console does (`/ip addr pr`); without it, only whole names.
   */
  namesAt?(path: readonly string[]): readonly string[];
  /** Optional: the argument names of a command, for abbreviated arguments (`add addr=10.0.0.1/24`). */
  argumentsOf?(path: readonly string[], verb: string): readonly string[];
}

/** One command, resolved and evaluated, ready for the host. */
export interface CommandCall {
  /** Absolute menu path, e.g. `["ip", "address"]`. */
  readonly menu: readonly string[];
  readonly verb: string;
  /** Unnamed arguments in order (`set ether1 ...`, `remove [find ...]`, `remove 0`). */
  readonly positional: readonly RosValue[];
  /** Named arguments in source order; a flag written without `=` (e.g. `detail`) has the value `true`. */
  readonly named: ReadonlyMap<string, RosValue>;
  /** Compiled `where` clause of `print where ...` / `find where ...`; absent when none was written. */
  readonly where?: (item: ItemProperties) => boolean;
  /** 1-based position of the command's first word in the script, for error messages. */
  readonly line: number;
  readonly column: number;
}

/** Output of a command: a value (`find`, `get`, `add` returns the new id) and printed lines (`print`, `export`). */
export interface CommandResult {
  readonly value?: RosValue;
  readonly output?: readonly string[];
  /** Records for the synchronous API view of `print` (RouterOS property names, string values). */
  readonly records?: readonly ItemProperties[];
}

export interface CommandHost {
  readonly catalog: CommandCatalog;
  /** Runs one command. Throws `RouterOsError` with the router's own text (`failure: already have such address`). */
  execute(call: CommandCall): CommandResult | Promise<CommandResult>;
  /** `:log <level> <message>`; topics as RouterOS gives them (`script,info`). */
  log(topics: readonly string[], message: string): void;
  /**
   * `:delay`; the host decides whether time really passes (simulation may scale it). When `signal` aborts, the
   * host stops waiting and frees its timer: a stopped script must not hold the process for the rest of it.
   */
  delay(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Optional: `:execute` without `as-string`. Starts `job` in the background as a script job of the host
   * (`/system script job`) and returns its id (`*1`); without it, `:execute` fails on this host. The host
   * aborts the signal to stop the job (`/system script job remove`, a reboot) and keeps the output it is
   * given when `job.file` names a file.
   */
  startJob?(job: BackgroundJob): string;
  /** Optional: `:resolve`, the address the host's DNS gives for a name; undefined when it has none. */
  resolveName?(name: string): string | undefined;
  /** Optional: the host's clock, for `:timestamp`. @default the process's clock */
  now?(): Date;
  /** Optional: a number in [0, 1) for `:rndnum` and `:rndstr`; a simulated router's is seeded. @default Math.random */
  random?(): number;
}

/** A script `:execute` runs in the background. */
export interface BackgroundJob {
  /** `file=`: the file its output goes to when it ends (as given; the host adds the extension). */
  readonly file?: string;
  /** Runs it to its end; rejects with `RouterOsError` when it fails and with the reason when aborted. */
  run(signal: AbortSignal, onOutput: (line: string) => void): Promise<void>;
}
