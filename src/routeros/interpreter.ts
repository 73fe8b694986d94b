/**
 * Runs a parsed script against a `CommandHost`. Like RouterOS it stops at the first failure and leaves what
 * ran before applied; a failure the host raises without a position is placed at the failing command.
 */

import { setImmediate } from "node:timers/promises";
import type { Block, Expr, Position, Statement } from "./ast.js";
import { RouterOsError } from "./errors.js";
import { callFunction } from "./functions.js";
import type { CommandCall, CommandHost, RosValue } from "./host.js";
import { parseScript } from "./parser.js";
import { type Cell, Scope } from "./scope.js";
import { isTrue, parseDuration, toNumber, toText } from "./values.js";
import { compare, compileWhere } from "./where.js";

export interface RunOptions {
  /** Menu that relative commands start from. @default [] (the root) */
  readonly menu?: readonly string[];
  /** Stops the script before its next command (and during `:delay`); the abort reason is thrown. */
  readonly signal?: AbortSignal;
  /** Receives each output line as it is produced, so a caller keeps the output of a script that fails. */
  readonly onOutput?: (line: string) => void;
  /**
   * Statements a script may execute before it is stopped with an error. RouterOS itself lets a loop run
   * forever; a simulated router sharing a process with the service must not. @default 1,000,000
   */
  readonly maxStatements?: number;
  /**
   * The `:global` variables of the device: the script reads and changes them in place, so a host that passes
   * the same map to every run keeps them from one script to the next, as a router does until it reboots.
   * @default a new, empty map (the script's globals end with it)
   */
  readonly globals?: Map<string, Cell>;
}

export const DEFAULT_MAX_STATEMENTS = 1_000_000;

/**
 * Statements between two turns of the event loop. The interpreter awaits only promises that are already
 * settled, so a loop would otherwise never let a timer, an abort or another request run.
 */
const YIELD_EVERY = 512;

export interface RunResult {
  /** Lines from `:put`, `print` and `export`, in order. */
  readonly output: readonly string[];
}

const ARITHMETIC: Readonly<Record<string, (a: number, b: number) => number>> = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => Math.trunc(a / b),
  "%": (a, b) => a % b,
};

class Interpreter {
  readonly output: string[] = [];
  private readonly globals: Map<string, Cell>;
  private executed = 0;

  constructor(
    private readonly host: CommandHost,
    private readonly options: RunOptions,
  ) {
    this.globals = options.globals ?? new Map();
  }

  /** Runs statements in `scope`; the value of the last one is the value of `[ ... ]`. */
  async run(block: Block, scope: Scope): Promise<RosValue> {
    let value: RosValue = null;
    for (const statement of block.statements) {
      await this.step(statement);
      try {
        value = await this.execute(statement, scope);
      } catch (error) {
        throw error instanceof RouterOsError ? error.at(statement.line, statement.column) : error;
      }
    }
    return value;
  }

  /**
   * Counts a statement or a loop's turn (an empty loop body has no statements, and must count too): takes a
   * turn of the event loop now and then, honours the abort signal, and enforces the statement limit.
   */
  private async step(at: Position): Promise<void> {
    if (++this.executed % YIELD_EVERY === 0) await setImmediate();
    this.options.signal?.throwIfAborted();
    const limit = this.options.maxStatements ?? DEFAULT_MAX_STATEMENTS;
    if (this.executed > limit) {
      throw new RouterOsError(`script stopped after ${limit} statements, the limit of this router`).at(
        at.line,
        at.column,
      );
    }
  }

  private print(text: string): void {
    for (const line of text.split("\n")) {
      this.output.push(line);
      this.options.onOutput?.(line);
    }
  }

  private async execute(statement: Statement, scope: Scope): Promise<RosValue> {
    switch (statement.kind) {
      case "command":
        return this.command(statement, scope);
      case "block":
        return this.run(statement.block, new Scope(scope));
      case "declare": {
        const value = statement.value ? await this.evaluate(statement.value, scope) : null;
        if (statement.scope === "local") {
          scope.bind(statement.name, { value });
          return null;
        }
        const cell = this.globals.get(statement.name) ?? { value: null };
        if (statement.value) cell.value = value;
        this.globals.set(statement.name, cell);
        scope.bind(statement.name, cell);
        return null;
      }
      case "set": {
        const cell = scope.lookup(statement.name) ?? this.missing(statement);
        cell.value = statement.value ? await this.evaluate(statement.value, scope) : null;
        return null;
      }
      case "put":
        this.print(statement.value ? toText(await this.evaluate(statement.value, scope)) : "");
        return null;
      case "log":
        this.host.log(["script", statement.level], toText(await this.evaluate(statement.message, scope)));
        return null;
      case "delay":
        await this.delay(parseDuration(await this.evaluate(statement.duration, scope)));
        return null;
      case "error":
        throw new RouterOsError(
          toText(await this.evaluate(statement.message, scope)),
          statement.line,
          statement.column,
        );
      case "if": {
        const branch = isTrue(await this.evaluate(statement.condition, scope))
          ? statement.body
          : statement.otherwise;
        return branch ? this.run(branch, new Scope(scope)) : null;
      }
      case "foreach": {
        const items = await this.evaluate(statement.items, scope);
        const list = Array.isArray(items) ? items : items === null ? [] : [items];
        for (const item of list) {
          await this.step(statement);
          const body = new Scope(scope);
          body.bind(statement.name, { value: item });
          await this.run(statement.body, body);
        }
        return null;
      }
      case "for": {
        const number = async (expr: Expr, name: string) => {
          const value = toNumber(await this.evaluate(expr, scope));
          if (value === undefined) throw new RouterOsError(`invalid value for argument ${name}`);
          return value;
        };
        const from = await number(statement.from, "from");
        const to = await number(statement.to, "to");
        const step = statement.step ? await number(statement.step, "step") : from > to ? -1 : 1;
        if (step === 0) throw new RouterOsError("invalid value for argument step");
        for (let value = from; step > 0 ? value <= to : value >= to; value += step) {
          await this.step(statement);
          const body = new Scope(scope);
          body.bind(statement.name, { value });
          await this.run(statement.body, body);
        }
        return null;
      }
      case "while":
        while (isTrue(await this.evaluate(statement.condition, scope))) {
          await this.step(statement);
          await this.run(statement.body, new Scope(scope));
        }
        return null;
      case "do":
        do {
          await this.step(statement);
          try {
            await this.run(statement.body, new Scope(scope));
          } catch (error) {
            if (!statement.onError || !(error instanceof RouterOsError)) throw error;
            await this.run(statement.onError, new Scope(scope));
          }
        } while (statement.while && isTrue(await this.evaluate(statement.while, scope)));
        return null;
      case "function": {
        const args: RosValue[] = [];
        for (const arg of statement.args) args.push(await this.evaluate(arg, scope));
        return callFunction(statement.name, args);
      }
    }
  }

  private async command(statement: Extract<Statement, { kind: "command" }>, scope: Scope): Promise<RosValue> {
    const positional: RosValue[] = [];
    for (const expr of statement.positional) positional.push(await this.evaluate(expr, scope));
    const named = new Map<string, RosValue>();
    for (const arg of statement.named) named.set(arg.name, await this.evaluate(arg.value, scope));
    const where = statement.where ? compileWhere(await this.bindWhere(statement.where, scope)) : undefined;
    const call: CommandCall = {
      menu: statement.menu,
      verb: statement.verb,
      positional,
      named,
      line: statement.line,
      column: statement.column,
      ...(where ? { where } : {}),
    };
    const result = await this.host.execute(call);
    if (result.output) for (const line of result.output) this.print(line);
    return result.value ?? null;
  }

  /** Replaces everything but item properties with its value, so the compiled condition needs no scope. */
  private async bindWhere(expr: Expr, scope: Scope): Promise<Expr> {
    switch (expr.type) {
      case "property":
        return expr;
      case "not":
        return { ...expr, operand: await this.bindWhere(expr.operand, scope) };
      case "binary":
        return {
          ...expr,
          left: await this.bindWhere(expr.left, scope),
          right: await this.bindWhere(expr.right, scope),
        };
      case "literal":
        return expr;
      default:
        return {
          type: "literal",
          line: expr.line,
          column: expr.column,
          value: await this.evaluate(expr, scope),
        };
    }
  }

  /** The parser rejects undeclared names; this guards names a `:global` in another branch never bound. */
  private missing(at: { line: number; column: number }): never {
    throw new RouterOsError("syntax error", at.line, at.column);
  }

  private async delay(ms: number): Promise<void> {
    const { signal } = this.options;
    if (!signal) return this.host.delay(ms);
    signal.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      this.host.delay(ms, signal).then(
        () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  }

  async evaluate(expr: Expr, scope: Scope): Promise<RosValue> {
    switch (expr.type) {
      case "literal":
        return expr.value;
      case "variable":
        return (scope.lookup(expr.name) ?? this.missing({ line: expr.line, column: expr.column + 1 })).value;
      case "property":
        throw new RouterOsError("syntax error", expr.line, expr.column);
      case "concat": {
        let text = "";
        for (const part of expr.parts) text += toText(await this.evaluate(part, scope));
        return text;
      }
      case "substitution":
        return this.run(expr.block, new Scope(scope));
      case "array": {
        const items: RosValue[] = [];
        for (const item of expr.items) items.push(await this.evaluate(item, scope));
        return items;
      }
      case "not":
        return !isTrue(await this.evaluate(expr.operand, scope));
      case "negate":
        return -this.number(await this.evaluate(expr.operand, scope));
      case "binary":
        return this.binary(expr, scope);
    }
  }

  private async binary(expr: Extract<Expr, { type: "binary" }>, scope: Scope): Promise<RosValue> {
    const { operator } = expr;
    const left = await this.evaluate(expr.left, scope);
    if (operator === "and") return isTrue(left) && isTrue(await this.evaluate(expr.right, scope));
    if (operator === "or") return isTrue(left) || isTrue(await this.evaluate(expr.right, scope));
    const right = await this.evaluate(expr.right, scope);
    if (operator === ".") return toText(left) + toText(right);
    const arithmetic = ARITHMETIC[operator];
    if (arithmetic) {
      const divisor = this.number(right);
      if ((operator === "/" || operator === "%") && divisor === 0)
        throw new RouterOsError("division by zero");
      return arithmetic(this.number(left), divisor);
    }
    return compare(operator, left, right);
  }

  private number(value: RosValue): number {
    const number = toNumber(value);
    if (number === undefined) throw new RouterOsError(`cannot convert ${toText(value)} to number`);
    return number;
  }
}

/**
 * Parses `source` with the host's catalog and runs it. Throws `RouterOsError` (text, line, column) at the
 * first failure; commands that ran before it stay applied.
 */
export async function runScript(
  source: string,
  host: CommandHost,
  options: RunOptions = {},
): Promise<RunResult> {
  const script = parseScript(source, host.catalog, { menu: options.menu ?? [] });
  const interpreter = new Interpreter(host, options);
  await interpreter.run(script.body, new Scope());
  return { output: interpreter.output };
}
