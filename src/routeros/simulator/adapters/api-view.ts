/**
 * The synchronous API view: a RouterOS API path (`/ip/arp/print`) plus API words, answered with records in
 * the service's keys (`.id` -> `id`, `-` -> `_`, every value a string).
 *
 * Words of `parameters` are split as every back end splits them (`src/contract/routers/sync-view.ts`). Supported
 * words: `=name=value` (arguments; `=.id=` selects items),
 * `=.proplist=a,b`, `?name=value` (equality query), `?name` / `?-name` (has / lacks a value), `.tag=` (ignored).
 *
 * `/execute` runs `=script=` and answers `[{"ret": "<output lines joined by \n>"}]`, like RouterOS REST's
 * `{"ret": ...}`; a failing script throws with the router's text and position. Other verbs answer their
 * value as `ret` (`add` -> `[{"ret":"*1"}]`) or nothing. `/export` (and `/ip/export`...) answers
 * `[{"ret": "<export text>"}]`, the configuration read of `routerjobs plan`.
 */

import { splitWords, toServiceRecord } from "../../../contract/routers/sync-view.js";
import type { RouterRecord } from "../../../contract/sync.js";
import { RouterOsError } from "../../errors.js";
import type { CommandCall, ItemProperties, RosValue } from "../../language/host.js";
import { toText } from "../../runtime/values.js";
import { unknownPathWord } from "../catalog.js";
import { matches } from "../items.js";
import type { SimulatedRouter } from "../router.js";

type Query = (record: ItemProperties) => boolean;

function parseQuery(word: string): Query {
  const body = word.slice(1);
  const eq = body.indexOf("=");
  if (eq > 0) {
    const name = body.slice(0, eq);
    const value = body.slice(eq + 1);
    return (record) => matches(record, name, value);
  }
  if (body.startsWith("-")) return (record) => (record[body.slice(1)] ?? "") === "";
  if (/^[a-z.][\w.-]*$/i.test(body)) return (record) => (record[body] ?? "") !== "";
  throw new RouterOsError(`unsupported query ${word}`);
}

function buildCall(path: readonly string[], words: readonly string[]): CommandCall {
  const named = new Map<string, RosValue>();
  const queries: Query[] = [];
  for (const word of words) {
    if (word.startsWith("?")) queries.push(parseQuery(word));
    else if (word.startsWith(".tag=")) continue;
    else if (word.startsWith("=")) {
      const eq = word.indexOf("=", 1);
      const name = eq < 0 ? word.slice(1) : word.slice(1, eq);
      const value = eq < 0 ? true : word.slice(eq + 1);
      named.set(name === ".id" ? "numbers" : name === ".proplist" ? "proplist" : name, value);
    } else throw new RouterOsError(`unknown parameter ${word}`);
  }
  const where =
    queries.length === 0 ? undefined : (record: ItemProperties) => queries.every((q) => q(record));
  return {
    menu: path.slice(0, -1),
    verb: path[path.length - 1] ?? "",
    positional: [],
    named,
    ...(where ? { where } : {}),
    line: 1,
    column: 1,
  };
}

/** Runs one API command; throws `RouterOsError` with the router's text. */
export async function apiCommand(
  router: SimulatedRouter,
  command: string,
  parameters = "",
  signal?: AbortSignal,
): Promise<RouterRecord[]> {
  const path = command.split("/").slice(1);
  if (!command.startsWith("/") || path.length === 0 || path.some((part) => part === "")) {
    throw new RouterOsError("no such command");
  }
  const words = splitWords(parameters);
  if (command === "/execute") {
    const script = words.find((word) => word.startsWith("=script="));
    if (!script) throw new RouterOsError("missing value(s) of argument(s) script");
    const outcome = await router.runScript(script.slice("=script=".length), signal);
    if (!outcome.ok) throw new RouterOsError(outcome.error);
    return [{ ret: outcome.output }];
  }
  const call = buildCall(path, words);
  if (!router.catalog.hasCommand(call.menu, call.verb)) {
    throw new RouterOsError(`no such command or directory (${unknownPathWord(path)})`);
  }
  const result = await router.execute(call);
  if (call.verb === "print" && !call.named.has("count-only"))
    return (result.records ?? []).map(toServiceRecord);
  // `/export` answers one record holding the whole script, as `/execute` answers its output (docs/plan.md).
  if (call.verb === "export" && result.output !== undefined) return [{ ret: result.output.join("\n") }];
  return result.value === undefined ? [] : [{ ret: toText(result.value) }];
}
