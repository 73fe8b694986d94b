/**
 * The RouterOS API face of one simulated router: a handler for `startRouterApiServer` that answers as a
 * RouterOS 7.18+ device does. Records carry RouterOS keys (`.id`, `mac-address`) and string values, as on
 * the wire; an empty print answers `!empty`; a refusal answers `!trap =message=<the router's text>`, with
 * `=category=` where RouterOS gives one (`trapCategory`).
 *
 * Commands: every menu verb the simulated router knows (`print` with `.proplist` and query words, `add`
 * answering `=ret=*ID`, `set`, `remove`, ...), `/execute =script=` (as RouterOS: a background job whose id is
 * `ret`, which goes on when the API session ends; with `=as-string=` it waits and answers the output as `ret`,
 * a failing script as `!trap`), and the commands that stream until `/cancel` (`/ping`, `/interface/monitor-traffic`
 * ...: api-streams.ts).
 */
import { compileQuery } from "../../api/query.js";
import { type ApiCommand, ApiTrap, type CommandHandler, type HandlerResult } from "../../api/server.js";
import { RouterOsError, withLine } from "../../errors.js";
import type { CommandCall, RosValue } from "../../language/host.js";
import { toText } from "../../runtime/values.js";
import { unknownPathWord } from "../catalog.js";
import { matches } from "../items.js";
import type { SimulatedRouter } from "../router.js";
import { streamCommands } from "./api-streams.js";

export interface ApiFrontEndOptions {
  /** Interval of `/ping` and the other streaming commands when one gives none (RouterOS: 1 s). @default 1000 */
  readonly pingIntervalMs?: number;
}

/** Arguments whose API name differs from the console's. */
const argumentNames: Readonly<Record<string, string>> = {
  ".id": "numbers",
  number: "numbers",
  ".proplist": "proplist",
};

export function apiFrontEnd(router: SimulatedRouter, options: ApiFrontEndOptions = {}): CommandHandler {
  let backgroundJobs = 0;
  return async (command) => {
    try {
      if (command.path === "/execute") {
        if (command.attributes.has("as-string")) return await execute(router, command);
        const script = command.attributes.get("script");
        if (script === undefined) throw new ApiTrap("missing value(s) of argument(s) script", 1);
        // Not tied to the command's signal: the job outlives the session. A failure is in the router's log.
        void router.runScript(script).catch(() => {});
        backgroundJobs++;
        return { done: { ret: `*${backgroundJobs.toString(16).toUpperCase()}` } };
      }
      const stream = streamCommands[command.path];
      if (stream) return await stream(router, command, options.pingIntervalMs ?? 1000);
      return await menuCommand(router, command);
    } catch (error) {
      if (error instanceof RouterOsError) throw new ApiTrap(error.text, trapCategory(error.text));
      throw error;
    }
  };
}

/**
 * RouterOS's `!trap` categories (its API manual: 0 missing item or command, 1 argument value failure,
 * 2 execution interrupted, 3 scripting, 4 general, 5 API, 6 TTY, 7 `:return`), for the failures whose category
 * is known; RouterOS sends one "on some occasions" only, so a failure not matched here carries none.
 */
const TRAP_CATEGORIES: ReadonlyArray<readonly [RegExp, number]> = [
  [/^(no such item|no such command|bad command name)\b/, 0],
  [
    /^(input does not match any value of|invalid value for argument|missing value\(s\) of argument\(s\)|unknown parameter|expected end of command|value of \S+ out of range)/,
    1,
  ],
  [/^interrupted\b/, 2],
];

export function trapCategory(text: string): number | undefined {
  return TRAP_CATEGORIES.find(([pattern]) => pattern.test(text))?.[1];
}

async function execute(router: SimulatedRouter, command: ApiCommand): Promise<HandlerResult> {
  const script = command.attributes.get("script");
  if (script === undefined) throw new ApiTrap("missing value(s) of argument(s) script", 1);
  const outcome = await router.runScript(script, command.signal);
  if (!outcome.ok) {
    throw new ApiTrap(withLine(outcome.error, outcome.line));
  }
  return { done: { ret: outcome.output } };
}

async function menuCommand(router: SimulatedRouter, command: ApiCommand): Promise<HandlerResult> {
  const path = command.path.split("/").slice(1);
  // `getall` is the API's old name of print.
  const verb = path[path.length - 1] === "getall" ? "print" : (path[path.length - 1] ?? "");
  const menu = path.slice(0, -1);
  if (path.some((part) => part === "") || !router.catalog.hasCommand(menu, verb)) {
    throw new ApiTrap(`no such command or directory (${unknownPathWord(path)})`, 0);
  }
  const named = new Map<string, RosValue>();
  for (const [name, value] of command.attributes) named.set(argumentNames[name] ?? name, value);
  if (command.proplist) named.set("proplist", command.proplist.join(","));
  const where = command.queries.length === 0 ? undefined : compileQuery(command.queries, matches);
  const call: CommandCall = {
    menu,
    verb,
    positional: [],
    named,
    ...(where ? { where } : {}),
    line: 1,
    column: 1,
  };
  const result = await router.execute(call);
  if (verb === "print" && !named.has("count-only")) {
    const records = result.records ?? [];
    for (const record of records) command.record(record);
    return { empty: records.length === 0 };
  }
  return result.value === undefined || result.value === null ? {} : { done: { ret: toText(result.value) } };
}
