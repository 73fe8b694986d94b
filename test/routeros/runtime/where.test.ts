import { describe, expect, it } from "vitest";
import { RouterOsError } from "../../../src/routeros/errors.js";
import type { CommandNode } from "../../../src/routeros/language/ast.js";
import type { ItemProperties } from "../../../src/routeros/language/host.js";
import { parseScript } from "../../../src/routeros/language/parser.js";
import { quoteString } from "../../../src/routeros/language/quote.js";
import { MAX_REGEX_WORK, MAX_WHERE_REGEX_MS } from "../../../src/routeros/limits.js";
import { ipIn } from "../../../src/routeros/runtime/ipv4.js";
import { compileWhere } from "../../../src/routeros/runtime/where.js";
import { NFA_PATTERN, nfaSubject } from "./regex-subjects.js";

/** Compiles the condition of `print where <condition>` (no variables, so nothing to bind first). */
function predicate(condition: string) {
  const [command] = parseScript(`/interface print where ${condition}`).body.statements as CommandNode[];
  if (!command?.where) throw new Error("no where clause");
  return compileWhere(command.where);
}

const ether1 = { name: "ether1", disabled: "false", running: "true", mtu: "1500", comment: "uplink to ISP" };

describe("compileWhere", () => {
  it.each([
    ["name=ether1", true],
    ['name="ether1"', true],
    ["name=ether2", false],
    ["name!=ether2", true],
    ["disabled=no", true],
    ["disabled=false", true],
    ["disabled=yes", false],
    ["running=yes", true],
    ["!disabled", true],
    ["disabled", false],
    ["not disabled", true],
    ["missing", false],
    ["mtu>1000 && mtu<=1500", true],
    ["mtu>=1501", false],
    ['comment~"^uplink"', true],
    ['comment~"ISP\\$"', true],
    ['comment~"^ISP"', false],
    ["name=ether1 and disabled=yes or mtu=1500", true],
    ["name=ether1 and (disabled=yes or mtu=9000)", false],
    ["name=ether2 || !disabled", true],
  ])("%s -> %s", (condition, expected) => {
    expect(predicate(condition)(ether1)).toBe(expected);
  });

  it("treats a missing property as empty text", () => {
    expect(predicate('comment=""')({ name: "x" })).toBe(true);
  });

  it("fails clearly on an invalid regular expression", () => {
    expect(() => predicate('comment~"("')).toThrow(RouterOsError);
    expect(() => predicate('comment~"("')).toThrow('invalid regular expression "(": missing closing )');
  });

  it("stops a command whose matches over its items take more than MAX_WHERE_REGEX_MS in all", () => {
    // Each match is within MAX_REGEX_WORK, and keeps RE2 on its NFA (milliseconds each); 2,000 items of them
    // take seconds on any machine. The host calls the predicate item after item, in one go, as `find` does.
    const comment = nfaSubject(Math.floor(MAX_REGEX_WORK / 40));
    const items = Array.from({ length: 2000 }, () => ({ comment }));
    const matching = predicate(`comment~${quoteString(NFA_PATTERN)}`);
    expect(() => items.filter(matching)).toThrow(
      `regular expression matching of this command took more than ${MAX_WHERE_REGEX_MS} ms, the limit of this router`,
    );
    // The next command has a budget of its own (a short subject: one heavy match alone may take long on a
    // loaded machine, and this is about the budget, not about the speed of one match).
    const short = nfaSubject(64);
    expect(predicate(`comment~${quoteString(NFA_PATTERN)}`)({ comment: short } as ItemProperties)).toBe(
      new RegExp(NFA_PATTERN).test(short),
    );
  });
});

describe("ipIn", () => {
  it.each([
    ["10.0.0.1", "10.0.0.0/8", true],
    ["10.0.0.1/24", "10.0.0.0/8", true],
    ["10.0.0.0/8", "10.0.0.0/8", true],
    ["10.0.0.0/7", "10.0.0.0/8", false],
    ["11.0.0.1", "10.0.0.0/8", false],
    ["192.168.1.7", "192.168.1.7", true],
    ["0.0.0.0/0", "0.0.0.0/0", true],
    ["255.255.255.255", "0.0.0.0/0", true],
    ["300.1.1.1", "0.0.0.0/0", false],
    ["ether1", "10.0.0.0/8", false],
  ])("%s in %s -> %s", (left, right, expected) => {
    expect(ipIn(left, right)).toBe(expected);
  });
});
