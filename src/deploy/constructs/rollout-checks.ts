import { describeValue } from "../../contract/index.js";
import { checkScript } from "../../routeros/catalog/check-script.js";
import { type CommandTree, commandTreeFor } from "../../routeros/catalog/command-tree.js";
import { parseScript } from "../../routeros/language/parser.js";
import { quoteString as quote } from "../../routeros/language/quote.js";

/**
 * Verbs that only read: a check runs on routers that already took the change, without a backup, so it must
 * not change them. `find`/`get` serve `[...]` lookups, `ping` and `monitor` read traffic and hardware.
 */
const READ_ONLY_VERBS = new Set(["print", "get", "getall", "find", "export", "monitor", "ping"]);

/**
 * What is wrong with a check script, or undefined when it parses against the tree and every command in it
 * only reads (`:put`, `:if`, `:error` and the other `:` commands are the language, not configuration).
 */
export function checkProblem(script: string, tree: CommandTree = commandTreeFor()): string | undefined {
  const syntax = checkScript(script, { tree });
  if (syntax !== undefined) return syntax.message;
  const writes: string[] = [];
  parseScript(script, {
    ...tree.catalog,
    hasCommand: (path, verb) => {
      const found = tree.catalog.hasCommand(path, verb);
      if (found && !READ_ONLY_VERBS.has(verb)) writes.push(`/${[...path, verb].join(" ")}`);
      return found;
    },
  });
  if (writes.length === 0) return undefined;
  return `must only read (print, get, find, export, monitor, ping): it runs \`${[...new Set(writes)].join("`, `")}\``;
}

/**
 * Typed checks for the common cases; each is a read-only RouterOS line that fails (`:error`) with a message
 * naming what is missing, so the deploy prints it. Combine several with an array: `[checks.routePresent(...),
 * checks.interfaceRunning("ether1")]`.
 */
export const checks = {
  /** An active route to `dstAddress` (`0.0.0.0/0` for the default route) is in the routing table. */
  routePresent(dstAddress: string): string {
    return `:if ([:len [/ip route find where dst-address=${quote(dstAddress)} active]] = 0) do={:error ${quote(`no active route to ${dstAddress}`)}}`;
  },
  /** The router holds `address` (with its prefix length, as `/ip address print` shows it). */
  addressPresent(address: string): string {
    return `:if ([:len [/ip address find where address=${quote(address)}]] = 0) do={:error ${quote(`address ${address} is missing`)}}`;
  },
  /** The interface exists and is running (link up). */
  interfaceRunning(name: string): string {
    return `:if ([:len [/interface find where name=${quote(name)} running]] = 0) do={:error ${quote(`interface ${name} is not running`)}}`;
  },
  /**
   * At least one of `count` pings to `address` (a gateway, the management host) is answered. The simulated
   * router cannot ping: use it against real routers.
   */
  pingAnswers(address: string, count = 3): string {
    if (!Number.isSafeInteger(count) || count < 1 || count > 100) {
      throw new RangeError(`count must be a whole number from 1 to 100 (got ${describeValue(count)})`);
    }
    return `:if ([/tool ping address=${quote(address)} count=${count}] = 0) do={:error ${quote(`no answer from ${address} to ${count} pings`)}}`;
  },
};
