/**
 * What the sub-parsers (expressions, global commands, runtime commands) may ask of the script parser. They
 * receive this interface instead of importing the `Parser` class, so the parser modules form no import circle:
 * `parser.ts` imports them, they import only this file.
 */

import type { RouterOsError } from "../errors.js";
import type { Block, Expr, Position } from "./ast.js";
import type { LexMode, Token } from "./lexer.js";

/** An argument as written: `name=value`, a flag, an unnamed value, or a `{ }` block (global commands only). */
export interface Argument extends Position {
  readonly name?: string;
  readonly value: Expr | Block;
}

export interface ArgumentOptions {
  typed: boolean;
  where: boolean;
  onArgument?: (arg: Argument) => void;
  /**
   * The names the command takes (host commands, from the catalog). Any other `name=` fails at its name,
   * before its value is read, as the console does: `expected end of command (line 2 column 17)`.
   */
  isNamed?: (name: string) => boolean;
  /** Whether a `{ }` in this place is an array literal (`in={"a";"b"}`) rather than a block. */
  isArray?: (name: string | undefined, position: number) => boolean;
  /**
   * Whether the `{ }` after `name=` (or unnamed, `name` undefined) is a function body (`:local f do={...}`,
   * `:execute {...}`), where any `$name` may be used.
   */
  functionBody?: (name: string | undefined) => boolean;
  /** The full argument name for an abbreviated one. */
  expandName?: (name: string) => string;
}

export interface ParseContext {
  peek(mode?: LexMode): Token;
  next(mode?: LexMode): Token;
  fail(text: string, at: Position): RouterOsError;
  /** One level of nesting; pair with `leave` (parser.ts says why every recursive path passes here). */
  enter(at: Position): void;
  leave(count?: number): void;
  /** Declares a variable in the innermost open scope. */
  declare(name: string): void;
  isDeclared(name: string): boolean;
  /** Whether the parser is inside a function body, where any `$name` may be an argument. */
  mayBeArgument(): boolean;
  /**
   * Declares the variable of a `:foreach`/`:for` loop in the next `{ }` block the parser opens (the loop
   * body), and only there: the loop's name is read before its body.
   */
  declareLoopVariable(name: string): void;
  parseArguments(options: ArgumentOptions): { list: Argument[]; where?: Expr };
  parseStatements(close: "}" | "]" | "eof", open: Position): Block;
  parseParenthesized(open: Position): Expr;
  /** After `{` where an array belongs: its items up to `}`. */
  parseArray(open: Token): Expr;
  parseString(open: Token): Expr;
  variable(token: Token): Expr;
}
