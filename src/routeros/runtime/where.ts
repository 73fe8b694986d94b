/**
 * `where` conditions compiled to `(item) => boolean` for `CommandCall.where`. The interpreter first replaces
 * variables and substitutions with their values (`bindWhere`), so the predicate is synchronous and pure.
 * Items hold RouterOS text; yes/true and no/false compare equal.
 */

import { RouterOsError } from "../errors.js";
import type { BinaryOperator, Expr } from "../language/ast.js";
import type { ItemProperties, RosValue } from "../language/host.js";
import { MAX_WHERE_REGEX_MS } from "../limits.js";
import { ipIn } from "./ipv4.js";
import { compileRegex, matchesRegex, type Regex } from "./regex.js";
import { isTrue, normalizeBoolean, sameValue, toNumber, toText } from "./values.js";

export type Predicate = (item: ItemProperties) => boolean;
type Getter = (item: ItemProperties) => RosValue;

function order(left: RosValue, right: RosValue): number {
  const a = toNumber(left);
  const b = toNumber(right);
  if (a !== undefined && b !== undefined) return a - b;
  const x = toText(left);
  const y = toText(right);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A comparison operator applied to two values, as both `where` and `( )` expressions use it. */
export function compare(operator: BinaryOperator, left: RosValue, right: RosValue): boolean {
  switch (operator) {
    case "=":
      return sameValue(left, right);
    case "!=":
      return !sameValue(left, right);
    case "<":
      return order(left, right) < 0;
    case ">":
      return order(left, right) > 0;
    case "<=":
      return order(left, right) <= 0;
    case ">=":
      return order(left, right) >= 0;
    case "~":
      return matchesRegex(toText(left), toText(right));
    case "in":
      return ipIn(toText(left), toText(right));
    default:
      throw new RouterOsError(`unsupported operator ${operator}`);
  }
}

function getter(expr: Expr): Getter {
  if (expr.type === "property") return (item) => item[expr.name] ?? "";
  if (expr.type === "literal") {
    const value = expr.word ?? expr.value;
    return () => value;
  }
  throw new RouterOsError("syntax error", expr.line, expr.column);
}

/**
 * Time a condition has spent matching `~`, held to MAX_WHERE_REGEX_MS: the host tests every item of a menu in
 * one go, so each match is bounded (MAX_REGEX_WORK) and so is their sum.
 */
class MatchClock {
  private spentMs = 0;

  test(regex: Regex, subject: string): boolean {
    const start = performance.now();
    const matched = regex.test(subject);
    this.spentMs += performance.now() - start;
    if (this.spentMs > MAX_WHERE_REGEX_MS) {
      throw new RouterOsError(
        `regular expression matching of this command took more than ${MAX_WHERE_REGEX_MS} ms, the limit of this router`,
      );
    }
    return matched;
  }
}

/** Compiles a bound condition (only properties, literals, `not`, comparisons, `and`/`or`). */
export function compileWhere(expr: Expr): Predicate {
  return compileCondition(expr, new MatchClock());
}

function compileCondition(expr: Expr, clock: MatchClock): Predicate {
  switch (expr.type) {
    case "property":
      return (item) => normalizeBoolean(item[expr.name] ?? "") === "true";
    case "literal": {
      const value = isTrue(expr.value);
      return () => value;
    }
    case "not": {
      const operand = compileCondition(expr.operand, clock);
      return (item) => !operand(item);
    }
    case "binary": {
      const { operator } = expr;
      if (operator === "and" || operator === "or") {
        const left = compileCondition(expr.left, clock);
        const right = compileCondition(expr.right, clock);
        return operator === "and" ? (item) => left(item) && right(item) : (item) => left(item) || right(item);
      }
      const left = getter(expr.left);
      const right = getter(expr.right);
      if (operator === "~") {
        // A literal pattern (the usual case) is compiled once for all the items.
        const regex = expr.right.type === "literal" ? compileRegex(toText(right({}))) : undefined;
        return (item) => clock.test(regex ?? compileRegex(toText(right(item))), toText(left(item)));
      }
      return (item) => compare(operator, left(item), right(item));
    }
    default:
      throw new RouterOsError("syntax error", expr.line, expr.column);
  }
}
