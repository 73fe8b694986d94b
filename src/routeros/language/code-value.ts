/** Code as a value: what `:parse` returns, held in a variable and run with `$f` or `[$f a=1]`. */
import type { Block } from "./ast.js";

export class RosCode {
  constructor(
    /** The parsed statements; `$name` inside is an argument of the call (nil when not passed). */
    readonly body: Block,
    /** The text it was parsed from: what `:put` shows and what the memory budget counts. */
    readonly source: string,
  ) {}

  toString(): string {
    return this.source;
  }
}
