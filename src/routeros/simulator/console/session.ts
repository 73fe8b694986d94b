/**
 * One console session of the simulated router, as SSH gives it: a command line (`exec`) runs and answers its
 * output and a status; a shell shows the `[admin@MikroTik] > ` prompt and runs each line as it is entered.
 *
 * As on RouterOS, a line that names only a menu (`/ip address`, `..`) moves the prompt there and later lines
 * run in it; a line with an open `{`, `[` or `(`, or ending in `\`, waits for the lines that close it; `quit`
 * ends the session. What a command prints (`print`, `:put`, `export`) is the session's output; a failure
 * prints the router's text (`failure: already have such address`, `syntax error (line 1 column 5)`).
 */
import type { ScriptOutcome } from "../../../contract/routers/router-backend.js";

export interface ConsoleOptions {
  /**
   * Runs RouterOS source on the router (the simulated router's `runScript`); the signal stops it (Ctrl-C, a
   * client gone), its reason being the failure printed.
   */
  readonly run: (source: string, signal?: AbortSignal) => Promise<ScriptOutcome>;
  /** The router's `/system identity` name, read for every prompt. */
  readonly identity: () => string;
  /** Whether a path is a menu of the router's console (`["ip", "address"]`). */
  readonly isMenu: (path: readonly string[]) => boolean;
  /** The login name without its `+` options. */
  readonly user: string;
}

/** What one entered line gave: the lines to print, and whether the session ends. */
export interface ConsoleReply {
  readonly output: readonly string[];
  readonly quit: boolean;
}

/** The banner after login; RouterOS prints its logo, the version and "Press F1 for help". */
export const consoleBanner: readonly string[] = [
  "",
  "  MikroTik RouterOS 7.24 (simulated by routerjobs)",
  "",
  "Press F1 for help",
  "",
];

/** Errors of the line as written, which the console places (`syntax error (line 1 column 10)`). */
const placedErrors = /^(syntax error|bad command name|expected |no such command|unknown parameter)/;

/**
 * A failure as the console prints it: an error in how the line is written keeps its place; what a command
 * refused when it ran (`failure: already have such address`, `no such item`) is printed without one.
 */
export function consoleError(text: string): string {
  return placedErrors.test(text) ? text : text.replace(/ \(line \d+ column \d+\)$/, "");
}

/** The output of a command line and its exit status: 0 when it ran, 1 when the router refused it. */
export async function runCommandLine(
  source: string,
  run: ConsoleOptions["run"],
  signal?: AbortSignal,
): Promise<{ output: string[]; status: number }> {
  const outcome = await run(source, signal);
  const output = outcome.output === "" ? [] : outcome.output.split("\n");
  if (outcome.ok) return { output, status: 0 };
  return { output: [...output, consoleError(outcome.error)], status: 1 };
}

/** Brackets and braces left open by `text` (outside quotes); a line with any open waits for more. */
export function openBrackets(text: string): number {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "\\") {
      i++;
      continue;
    }
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "{" || char === "[" || char === "(")) depth++;
    else if (!quoted && (char === "}" || char === "]" || char === ")")) depth--;
  }
  return quoted ? Math.max(depth, 1) : depth;
}

export class ConsoleSession {
  private menu: readonly string[] = [];
  private pending: string[] = [];

  constructor(private readonly options: ConsoleOptions) {}

  /** `[admin@MikroTik] > `, `[admin@MikroTik] /ip/address> `, or `{... ` inside an unfinished command. */
  prompt(): string {
    if (this.pending.length > 0) return "{... ";
    const where = this.menu.length === 0 ? "" : `/${this.menu.join("/")}`;
    return `[${this.options.user}@${this.options.identity()}] ${where}> `;
  }

  async enter(line: string, signal?: AbortSignal): Promise<ConsoleReply> {
    this.pending.push(line);
    const text = this.pending.join("\n");
    if (line.endsWith("\\") || openBrackets(text) > 0) return { output: [], quit: false };
    this.pending = [];
    const trimmed = text.trim();
    if (trimmed === "") return { output: [], quit: false };
    if (trimmed === "quit" || trimmed === "/quit") return { output: ["interrupted"], quit: true };
    const menu = this.menuNamed(trimmed);
    if (menu) {
      this.menu = menu;
      return { output: [], quit: false };
    }
    // A relative command runs in the prompt's menu: a script's first line sets it, as the console's would.
    const source =
      this.menu.length === 0 || trimmed.startsWith("/") ? text : `/${this.menu.join(" ")}\n${text}`;
    const { output } = await runCommandLine(source, this.options.run, signal);
    return { output, quit: false };
  }

  /** The menu a line names alone (`/ip address`, `ip/route`, `..`, `/`), or undefined. */
  private menuNamed(text: string): readonly string[] | undefined {
    if (!/^[/a-z0-9. -]+$/i.test(text)) return undefined;
    const absolute = text.startsWith("/");
    const path = absolute ? [] : [...this.menu];
    for (const word of text.split(/[\s/]+/).filter((part) => part !== "")) {
      if (word === "..") path.pop();
      else path.push(word);
    }
    if (path.length === 0) return absolute || text.split(/[\s/]+/).includes("..") ? [] : undefined;
    return this.options.isMenu(path) ? path : undefined;
  }
}
