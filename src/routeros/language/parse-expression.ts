/**
 * Expressions: inside `( )` (`:if ($a = 1 && !$b)`) and after `where` (`print where name="x" and !disabled`).
 * Precedence, loosest first: `||`/`or`, `&&`/`and`, `!`/`not`, comparisons (`= != < > <= >= ~ in`),
 * bitwise `& | ^ << >>`, `. + -`, `* / %`, unary `-`, `->` (an item of an array). After `where`, a bare word that is tested (`!disabled`) or compared on the
 * left (`interface=ether1`) names a property of the item; a bare word on the right is a literal.
 */

import type { BinaryOperator, Expr } from "./ast.js";
import type { Token } from "./lexer.js";
import { typeWord } from "./literal-word.js";
import type { ParseContext } from "./parse-context.js";

const LEVELS: readonly Readonly<Record<string, BinaryOperator>>[] = [
  { "||": "or", or: "or" },
  { "&&": "and", and: "and" },
  {}, // `!` / `not`: prefix, handled in `level`
  { "=": "=", "!=": "!=", "<": "<", ">": ">", "<=": "<=", ">=": ">=", "~": "~", in: "in" },
  { "&": "&", "|": "|", "^": "^", "<<": "<<", ">>": ">>" },
  { ".": ".", "+": "+", "-": "-" },
  { "*": "*", "/": "/", "%": "%" },
];
const NOT_LEVEL = 2;
const COMPARISONS = LEVELS[3] as Readonly<Record<string, BinaryOperator>>;

class ExpressionParser {
  constructor(
    private readonly parser: ParseContext,
    /** Inside `( )` new lines are blanks; after `where` they end the command. */
    private readonly skipNewlines: boolean,
  ) {}

  private peek(): Token {
    let token = this.parser.peek("expression");
    while (this.skipNewlines && token.kind === "eol") {
      this.parser.next("expression");
      token = this.parser.peek("expression");
    }
    return token;
  }

  private operatorAt(level: number): BinaryOperator | undefined {
    const token = this.peek();
    if (token.kind !== "op" && token.kind !== "word") return undefined;
    return Object.hasOwn(LEVELS[level] ?? {}, token.text) ? LEVELS[level]?.[token.text] : undefined;
  }

  level(level: number): Expr {
    if (level === LEVELS.length) return this.unary();
    if (level === NOT_LEVEL) {
      const token = this.peek();
      if ((token.kind === "op" && token.text === "!") || (token.kind === "word" && token.text === "not")) {
        this.parser.next("expression");
        this.parser.enter(token);
        const operand = this.level(NOT_LEVEL);
        this.parser.leave();
        return { type: "not", line: token.line, column: token.column, operand };
      }
    }
    let left = this.level(level + 1);
    // Each operator of a chain deepens the (left-leaning) tree the interpreter walks recursively.
    let chain = 0;
    for (let operator = this.operatorAt(level); operator; operator = this.operatorAt(level)) {
      this.parser.enter(this.peek());
      chain++;
      this.parser.next("expression");
      const right = this.level(level + 1);
      left = { type: "binary", line: left.line, column: left.column, operator, left, right };
    }
    this.parser.leave(chain);
    return left;
  }

  private unary(): Expr {
    const token = this.peek();
    if (token.kind === "op" && (token.text === "-" || token.text === "~")) {
      this.parser.next("expression");
      // `where name=-`: a lone `-` before the end is the text `-` (RouterOS's "no value" in many columns).
      if (token.text === "-" && END_OF_WHERE.has(this.peek().kind))
        return { type: "literal", line: token.line, column: token.column, value: "-", word: "-" };
      this.parser.enter(token);
      const operand = this.unary();
      this.parser.leave();
      const type = token.text === "-" ? "negate" : "invert";
      return { type, line: token.line, column: token.column, operand };
    }
    return this.items(this.primary());
  }

  /** `$a->"key"->0`: items of an array, binding tighter than any other operator. */
  private items(array: Expr): Expr {
    let expr = array;
    for (let token = this.peek(); token.kind === "op" && token.text === "->"; token = this.peek()) {
      this.parser.next("expression");
      const key = this.primary();
      expr = { type: "binary", line: expr.line, column: expr.column, operator: "->", left: expr, right: key };
    }
    return expr;
  }

  private primary(): Expr {
    const token = this.peek();
    const parser = this.parser;
    const at = { line: token.line, column: token.column };
    switch (token.kind) {
      case "(":
        parser.next("expression");
        return parser.parseParenthesized(token);
      case "[":
        parser.next("expression");
        return { type: "substitution", ...at, block: parser.parseStatements("]", token) };
      case "{":
        // `:local seen ({})`, `({ "a"; "b" })`: an array written where a value is computed.
        parser.next("expression");
        return parser.parseArray(token);
      case "quote":
        parser.next("expression");
        return parser.parseString(token);
      case "var":
        parser.next("expression");
        return parser.variable(token);
      case "word":
        parser.next("expression");
        return { type: "literal", ...at, value: typeWord(token.text), word: token.text };
      default:
        throw parser.fail("syntax error", token);
    }
  }
}

/** A condition after `where`: bare words in tested or left-compared places become item properties. */
function asCondition(expr: Expr): Expr {
  switch (expr.type) {
    case "literal":
      return expr.word === undefined
        ? expr
        : { type: "property", line: expr.line, column: expr.column, name: expr.word };
    case "not":
      return { ...expr, operand: asCondition(expr.operand) };
    case "binary":
      if (expr.operator === "and" || expr.operator === "or") {
        return { ...expr, left: asCondition(expr.left), right: asCondition(expr.right) };
      }
      if (Object.values(COMPARISONS).includes(expr.operator))
        return { ...expr, left: asCondition(expr.left) };
      return expr;
    default:
      return expr;
  }
}

const END_OF_WHERE = new Set(["eol", ";", "]", "}", ")", "eof"]);

/**
 * An expression; after `where`, conditions written one after another without `and`
 * (`print where disabled interface=ether1`) must all hold, as the console reads them.
 */
export function parseExpression(parser: ParseContext, options: { where: boolean }): Expr {
  const expressions = new ExpressionParser(parser, !options.where);
  let expr = expressions.level(0);
  if (!options.where) return expr;
  let joined = 0;
  for (let next = parser.peek("expression"); !END_OF_WHERE.has(next.kind); next = parser.peek("expression")) {
    parser.enter(next);
    joined++;
    const right = expressions.level(0);
    expr = { type: "binary", line: expr.line, column: expr.column, operator: "and", left: expr, right };
  }
  parser.leave(joined);
  return asCondition(expr);
}
