/**
 * The arguments of a global command (`:local`, `:if`, ...) once read: unnamed ones by position, named ones by
 * name, each checked against what the command takes, failing as the console does (`syntax error`).
 */
import type { Block, Expr, Position } from "./ast.js";
import type { Argument, ParseContext } from "./parse-context.js";

export class GlobalArguments {
  private readonly positional: Argument[];
  private readonly named = new Map<string, Argument>();

  constructor(
    private readonly parser: ParseContext,
    private readonly command: Position,
    list: readonly Argument[],
    accepted: readonly string[],
  ) {
    this.positional = list.filter((arg) => arg.name === undefined);
    for (const arg of list) {
      if (arg.name === undefined) continue;
      if (!accepted.includes(arg.name)) throw parser.fail("syntax error", arg);
      this.named.set(arg.name, arg);
    }
  }

  /** Fails on unnamed arguments beyond `count`: RouterOS stops reading the command there. */
  most(count: number): void {
    const extra = this.positional[count];
    if (extra) throw this.parser.fail("expected end of command", extra);
  }

  expr(arg: Argument | undefined): Expr | undefined {
    if (arg === undefined) return undefined;
    if ("statements" in arg.value) throw this.parser.fail("syntax error", arg);
    return arg.value;
  }
  block(arg: Argument | undefined): Block | undefined {
    if (arg === undefined) return undefined;
    if (!("statements" in arg.value)) throw this.parser.fail("syntax error", arg);
    return arg.value;
  }
  at(index: number): Expr | undefined {
    return this.expr(this.positional[index]);
  }
  option(name: string): Argument | undefined {
    return this.named.get(name);
  }
  required<T>(value: T | undefined): T {
    if (value === undefined) throw this.parser.fail("syntax error", this.command);
    return value;
  }
  /** A variable name, bare or quoted (`:local x`, `:local "my var"`, `:foreach i in=...`). */
  name(index: number): string {
    const expr = this.required(this.at(index));
    if (expr.type === "literal" && expr.word !== undefined) return expr.word;
    if (expr.type === "literal" && typeof expr.value === "string" && expr.value !== "") return expr.value;
    throw this.parser.fail("syntax error", expr);
  }
}
