/**
 * Runs a parsed script against a `CommandHost`. Like RouterOS it stops at the first failure and leaves what
 * ran before applied; a failure the host raises without a position is placed at the failing command.
 */

import { performance } from "node:perf_hooks";
import { RouterOsError } from "../errors.js";
import type { Block, Expr, Position, Statement } from "../language/ast.js";
import { RosCode } from "../language/code-value.js";
import type { CommandCall, CommandHost, RosValue } from "../language/host.js";
import { parseScript } from "../language/parser.js";
import { DEFAULT_MAX_MEMORY_BYTES, MAX_CALL_DEPTH } from "../limits.js";
import { addressArithmetic, invertAddress } from "./address-arithmetic.js";
import { type ArrayEntry, arrayOf, entriesOf, itemOf, joinArrays, withPath } from "./arrays.js";
import { runDataCommand } from "./data-commands.js";
import { environmentLines } from "./environment.js";
import { nextTurn } from "./event-loop-turns.js";
import { callFunction } from "./functions.js";
import { MemoryBudget, textBytes } from "./memory.js";
import { type Cell, Scope } from "./scope.js";
import { isTrue, parseDelayTime, timeText, toNumber, toText } from "./values.js";
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
  /**
   * Bytes of script values the run may hold at once (variables, the value being built, kept output); beyond
   * it the script fails with `not enough memory`. @default DEFAULT_MAX_MEMORY_BYTES (4 MiB, see limits.ts)
   */
  readonly maxMemoryBytes?: number;
  /** What `:jobname` gives: the name of the script running (`/system script run backup`). @default "" */
  readonly jobName?: string;
}

export const DEFAULT_MAX_STATEMENTS = 1_000_000;
export { DEFAULT_MAX_MEMORY_BYTES } from "../limits.js";

/**
 * When the run takes a turn of the event loop: after this many statements, or this long since the last turn,
 * whichever comes first. The interpreter awaits only promises that are already settled, so a loop would
 * otherwise never let a timer, an abort or another request run; the time bound covers statements that each
 * do a lot (strings of a few MiB), the count keeps turns regular when the clock is coarse.
 */
const YIELD_EVERY = 512;
const YIELD_AFTER_MS = 4;

/** `:return` unwinding to the function call (or the script) that receives its value. */
class ReturnSignal {
  constructor(readonly value: RosValue) {}
}
/** `/quit` unwinding to the top of the script. */
class QuitSignal {}

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
  // RouterOS numbers are 64-bit: BigInt keeps the bits above 32 that JavaScript's bitwise operators drop.
  "&": (a, b) => Number(BigInt(a) & BigInt(b)),
  "|": (a, b) => Number(BigInt(a) | BigInt(b)),
  "^": (a, b) => Number(BigInt(a) ^ BigInt(b)),
  "<<": (a, b) => Number(BigInt.asIntN(64, BigInt(a) << BigInt(b))),
  ">>": (a, b) => Number(BigInt(a) >> BigInt(b)),
};

/**
 * Statements run so far by a script and by every script it `:execute`s in the background (and they in turn):
 * one count against one limit, so a script cannot escape the limit by handing its loop to a job.
 */
interface StatementCount {
  executed: number;
}

/**
 * What `:time` reports. The simulated router measures no wall clock (it would make scripts' results differ
 * from run to run): the time is the `:delay` time inside plus one millisecond per 1,000 statements started,
 * so `:time {:put 1}` is `00:00:00.001` and `:time {:delay 1s}` is `00:00:01.001`.
 */
const STATEMENTS_PER_MS = 1000;

class Interpreter {
  readonly output: string[] = [];
  private readonly globals: Map<string, Cell>;
  private readonly budget: MemoryBudget;
  private yieldAt = performance.now() + YIELD_AFTER_MS;
  private callDepth = 0;
  /** Simulated milliseconds of `:delay` so far, for `:time`. */
  private delayedMs = 0;
  /** Lines printed by an `:execute as-string` in progress: they are its value, not the script's output. */
  private capture: string[] | undefined;

  constructor(
    private readonly host: CommandHost,
    private readonly options: RunOptions,
    private readonly count: StatementCount = { executed: 0 },
  ) {
    this.globals = options.globals ?? new Map();
    this.budget = new MemoryBudget(options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES);
    for (const cell of this.globals.values()) this.budget.adopt(cell);
  }

  /** Runs the whole script: `:return` and `/quit` at the top end it without an error. */
  async main(block: Block): Promise<void> {
    try {
      await this.scoped(block, new Scope());
    } catch (error) {
      if (!(error instanceof ReturnSignal || error instanceof QuitSignal)) throw error;
    }
  }

  /** A new variable of `scope`, counted by the budget (replacing one of the same name in that scope). */
  private bindLocal(scope: Scope, name: string, value: RosValue, code?: Block): void {
    const cell: Cell = { value: null };
    this.budget.store(cell, value);
    if (code) cell.code = code;
    const replaced = scope.bind(name, cell, true);
    if (replaced) this.budget.release(replaced);
  }

  /**
   * Runs statements in `scope` (a scope of the block's own) and then frees the variables it created; the
   * value of the last statement is the value of `[ ... ]`.
   */
  private async scoped(block: Block, scope: Scope): Promise<RosValue> {
    let value: RosValue = null;
    try {
      for (const statement of block.statements) {
        const pause = this.step(statement);
        if (pause) await pause;
        try {
          value = await this.execute(statement, scope);
        } catch (error) {
          throw error instanceof RouterOsError ? error.at(statement.line, statement.column) : error;
        }
      }
    } finally {
      for (const cell of scope.ownedCells()) this.budget.release(cell);
    }
    return value;
  }

  /**
   * Counts a statement or a loop's turn (an empty loop body has no statements, and must count too): takes a
   * turn of the event loop now and then, honours the abort signal, and enforces the statement limit.
   */
  private step(at: Position): Promise<void> | undefined {
    // Synchronous unless it is time for a turn of the event loop: awaiting nothing saves a microtask a statement.
    if (++this.count.executed % YIELD_EVERY === 0 || performance.now() >= this.yieldAt) return this.pause(at);
    this.check(at);
    return undefined;
  }

  private async pause(at: Position): Promise<void> {
    await nextTurn();
    this.yieldAt = performance.now() + YIELD_AFTER_MS;
    this.check(at);
  }

  private check(at: Position): void {
    this.options.signal?.throwIfAborted();
    const limit = this.options.maxStatements ?? DEFAULT_MAX_STATEMENTS;
    if (this.count.executed > limit) {
      throw new RouterOsError(`script stopped after ${limit} statements, the limit of this router`).at(
        at.line,
        at.column,
      );
    }
  }

  private print(text: string): void {
    this.budget.keep(textBytes(text.length));
    if (this.capture) {
      this.capture.push(...text.split("\n"));
      return;
    }
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
        return this.scoped(statement.block, new Scope(scope));
      case "declare": {
        const value = statement.value ? await this.evaluate(statement.value, scope) : null;
        if (statement.scope === "local") {
          this.bindLocal(scope, statement.name, value, statement.code);
          return null;
        }
        let cell = this.globals.get(statement.name);
        if (!cell) {
          cell = { value: null };
          this.budget.adopt(cell);
        }
        if (statement.value || statement.code) this.assign(cell, value, statement.code);
        this.globals.set(statement.name, cell);
        scope.bind(statement.name, cell);
        return null;
      }
      case "set": {
        const cell = scope.lookup(statement.name) ?? this.missing(statement);
        const value = statement.value ? await this.evaluate(statement.value, scope) : null;
        if (statement.path) {
          const keys: RosValue[] = [];
          for (const key of statement.path) keys.push(await this.evaluate(key, scope));
          this.assign(cell, withPath(cell.value, keys, value), undefined);
          return null;
        }
        this.assign(cell, value, statement.code);
        return null;
      }
      case "call":
        return this.call(statement, scope);
      case "invoke":
        return this.invoke(statement, scope);
      case "return":
        throw new ReturnSignal(statement.value ? await this.evaluate(statement.value, scope) : null);
      case "quit":
        throw new QuitSignal();
      case "put":
        this.print(statement.value ? toText(await this.evaluate(statement.value, scope)) : "");
        return null;
      case "log":
        this.host.log(["script", statement.level], toText(await this.evaluate(statement.message, scope)));
        return null;
      case "delay":
        await this.delay(parseDelayTime(await this.evaluate(statement.duration, scope)));
        return null;
      case "retry":
        return this.retry(statement, scope);
      case "resolve": {
        const name = toText(await this.evaluate(statement.name, scope));
        const address = this.host.resolveName?.(name);
        if (address === undefined) throw new RouterOsError("failure: dns name does not exist");
        return address;
      }
      case "timestamp":
        return timeText((this.host.now?.() ?? new Date()).getTime());
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
        return branch ? this.scoped(branch, new Scope(scope)) : null;
      }
      case "foreach": {
        const items = await this.evaluate(statement.items, scope);
        for (const [index, [key, item]] of entriesOf(items).entries()) {
          const pause = this.step(statement);
          if (pause) await pause;
          const body = new Scope(scope);
          if (statement.key !== undefined) this.bindLocal(body, statement.key, key ?? index);
          this.bindLocal(body, statement.name, item);
          await this.scoped(statement.body, body);
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
          const pause = this.step(statement);
          if (pause) await pause;
          const body = new Scope(scope);
          this.bindLocal(body, statement.name, value);
          await this.scoped(statement.body, body);
        }
        return null;
      }
      case "while":
        while (isTrue(await this.evaluate(statement.condition, scope))) {
          const pause = this.step(statement);
          if (pause) await pause;
          await this.scoped(statement.body, new Scope(scope));
        }
        return null;
      case "onerror":
        try {
          await this.scoped(statement.body, new Scope(scope));
          return false;
        } catch (error) {
          if (!(error instanceof RouterOsError)) throw error;
          const handler = new Scope(scope);
          this.bindLocal(handler, statement.name, error.message);
          await this.scoped(statement.handler, handler);
          return true;
        }
      case "do":
        do {
          const pause = this.step(statement);
          if (pause) await pause;
          try {
            await this.scoped(statement.body, new Scope(scope));
          } catch (error) {
            if (!statement.onError || !(error instanceof RouterOsError)) throw error;
            await this.scoped(statement.onError, new Scope(scope));
          }
        } while (statement.while && isTrue(await this.evaluate(statement.while, scope)));
        return null;
      case "time":
      case "parse":
      case "execute":
      case "environment":
        return this.runtimeCommand(statement, scope);
      case "data": {
        const value = statement.value ? await this.evaluate(statement.value, scope) : undefined;
        const named = new Map<string, RosValue>();
        for (const arg of statement.named) named.set(arg.name, await this.evaluate(arg.value, scope));
        const random = this.host.random ? () => this.host.random?.() ?? 0 : Math.random;
        return this.budget.check(runDataCommand(statement.name, value, named, random));
      }
      case "function": {
        const args: RosValue[] = [];
        for (const arg of statement.args) args.push(await this.evaluate(arg, scope));
        if (statement.name === "jobname") return this.options.jobName ?? "";
        return this.budget.check(callFunction(statement.name, args));
      }
    }
  }

  /**
   * `:retry`: RouterOS's manual gives no defaults; without `max` the block runs once more after a failure
   * (two tries), without `delay` a second passes between tries.
   */
  private async retry(statement: Extract<Statement, { kind: "retry" }>, scope: Scope): Promise<RosValue> {
    const max = statement.max ? this.number(await this.evaluate(statement.max, scope)) : 2;
    const delay = statement.delay ? parseDelayTime(await this.evaluate(statement.delay, scope)) : 1000;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.scoped(statement.body, new Scope(scope));
      } catch (error) {
        if (!(error instanceof RouterOsError)) throw error;
        if (attempt >= max) {
          if (!statement.onError) throw error;
          return this.scoped(statement.onError, new Scope(scope));
        }
      }
      const pause = this.step(statement);
      if (pause) await pause;
      await this.delay(delay);
    }
  }

  private assign(cell: Cell, value: RosValue, code: Block | undefined): void {
    this.budget.store(cell, value);
    if (code) cell.code = code;
    else delete cell.code;
  }

  /**
   * Runs the function a variable holds. Like RouterOS, the body sees its arguments (`$0` is the function's
   * name, `$1 $2` the unnamed ones, `$name` the named ones) and the globals it declares, not the caller's
   * locals; `:return` gives the value of `[$f ...]`.
   */
  private async call(statement: Extract<Statement, { kind: "call" }>, scope: Scope): Promise<RosValue> {
    const cell = scope.lookup(statement.name) ?? this.missing(statement);
    const code = cell.code ?? (cell.value instanceof RosCode ? cell.value.body : undefined);
    if (!code) throw new RouterOsError(`bad command name $${statement.name}`);
    return this.runCode(code, `$${statement.name}`, statement, scope);
  }

  /** `[ ... ]` as a statement: its value, or, when that is code (`[[:parse $src] a=1]`), the code run. */
  private async invoke(statement: Extract<Statement, { kind: "invoke" }>, scope: Scope): Promise<RosValue> {
    const value = await this.evaluate(statement.callee, scope);
    if (!(value instanceof RosCode)) {
      if (statement.positional.length > 0 || statement.named.length > 0)
        throw new RouterOsError("expected end of command");
      return value;
    }
    return this.runCode(value.body, "", statement, scope);
  }

  private async runCode(
    code: Block,
    label: string,
    args: {
      readonly positional: readonly Expr[];
      readonly named: readonly { readonly name: string; readonly value: Expr }[];
    },
    scope: Scope,
  ): Promise<RosValue> {
    const statement = args;
    if (this.callDepth >= MAX_CALL_DEPTH)
      throw new RouterOsError(
        `function calls nested deeper than ${MAX_CALL_DEPTH}, the limit of this router`,
      );
    const frame = new Scope();
    this.bindLocal(frame, "0", label);
    for (const [index, expr] of statement.positional.entries())
      this.bindLocal(frame, String(index + 1), await this.evaluate(expr, scope));
    for (const arg of statement.named) this.bindLocal(frame, arg.name, await this.evaluate(arg.value, scope));
    this.callDepth++;
    try {
      await this.scoped(code, frame);
      return null;
    } catch (error) {
      if (error instanceof ReturnSignal) return error.value;
      throw error;
    } finally {
      this.callDepth--;
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

  /**
   * Replaces everything but item properties with its value, so the compiled condition needs no scope: a part
   * that reads no property (`comment=($prefix . "-wan")`) becomes the literal it evaluates to.
   */
  private async bindWhere(expr: Expr, scope: Scope): Promise<Expr> {
    if (expr.type !== "literal" && !readsProperty(expr))
      return {
        type: "literal",
        line: expr.line,
        column: expr.column,
        value: await this.evaluate(expr, scope),
      };
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

  private async runtimeCommand(
    statement: Extract<Statement, { kind: "time" | "parse" | "execute" | "environment" }>,
    scope: Scope,
  ): Promise<RosValue> {
    switch (statement.kind) {
      case "time": {
        const executed = this.count.executed;
        const delayed = this.delayedMs;
        const { command } = statement;
        if ("statements" in command) await this.scoped(command, new Scope(scope));
        else await this.evaluate(command, scope);
        const statements = this.count.executed - executed;
        return timeText(this.delayedMs - delayed + Math.ceil(statements / STATEMENTS_PER_MS));
      }
      case "parse": {
        const source = toText(await this.evaluate(statement.source, scope));
        return this.budget.check(new RosCode(this.parse(source), source));
      }
      case "execute": {
        const { script } = statement;
        const code = "statements" in script ? script : this.parse(toText(await this.evaluate(script, scope)));
        if (statement.asString) return this.executeNow(code);
        const file = statement.file ? toText(await this.evaluate(statement.file, scope)) : undefined;
        return this.executeInBackground(code, file);
      }
      case "environment":
        for (const line of environmentLines(this.globals)) this.print(line);
        return null;
    }
  }

  /** Source given to `:parse` or `:execute`, read as a function body; its errors name places in it. */
  private parse(source: string) {
    return parseScript(source, this.host.catalog, { functionBody: true }).body;
  }

  /** `:execute as-string`: runs now, in a scope of its own, and gives what it printed. */
  private async executeNow(code: Block): Promise<string> {
    if (this.callDepth >= MAX_CALL_DEPTH)
      throw new RouterOsError(
        `function calls nested deeper than ${MAX_CALL_DEPTH}, the limit of this router`,
      );
    const outer = this.capture;
    const lines: string[] = [];
    this.capture = lines;
    this.callDepth++;
    try {
      await this.scoped(code, new Scope());
    } catch (error) {
      if (!(error instanceof ReturnSignal || error instanceof QuitSignal)) throw error;
    } finally {
      this.capture = outer;
      this.callDepth--;
    }
    return this.join("", lines.join("\n"));
  }

  /**
   * `:execute` without `as-string`: a script job of the host, returning its id. It shares this run's
   * globals and statement count; its own memory budget has this run's limit.
   */
  private executeInBackground(code: Block, file: string | undefined): string {
    if (!this.host.startJob) throw new RouterOsError("failure: :execute is not available on this host");
    const { maxStatements, maxMemoryBytes } = this.options;
    return this.host.startJob({
      ...(file !== undefined ? { file } : {}),
      run: (signal, onOutput) => {
        const options: RunOptions = {
          globals: this.globals,
          signal,
          onOutput,
          ...(maxStatements !== undefined ? { maxStatements } : {}),
          ...(maxMemoryBytes !== undefined ? { maxMemoryBytes } : {}),
        };
        return new Interpreter(this.host, options, this.count).main(code);
      },
    });
  }

  private async delay(ms: number): Promise<void> {
    this.delayedMs += ms;
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
      case "variable": {
        const cell = scope.lookup(expr.name);
        if (cell) return cell.code ? codeValue(cell.code) : cell.value;
        if (expr.optional) return null;
        return this.missing({ line: expr.line, column: expr.column + 1 });
      }
      case "property":
        throw new RouterOsError("syntax error", expr.line, expr.column);
      case "concat": {
        let text = "";
        for (const part of expr.parts) text = this.join(text, toText(await this.evaluate(part, scope)));
        return text;
      }
      case "substitution":
        return this.scoped(expr.block, new Scope(scope));
      case "array": {
        const items: RosValue[] = [];
        for (const item of expr.items) items.push(await this.evaluate(item, scope));
        if (!expr.keys) return this.budget.check(items);
        const entries: ArrayEntry[] = [];
        for (const [index, key] of expr.keys.entries())
          entries.push([key ? toText(await this.evaluate(key, scope)) : undefined, items[index] ?? null]);
        return this.budget.check(arrayOf(entries));
      }
      case "not":
        return !isTrue(await this.evaluate(expr.operand, scope));
      case "negate":
        return -this.number(await this.evaluate(expr.operand, scope));
      case "invert": {
        const value = await this.evaluate(expr.operand, scope);
        return invertAddress(value) ?? Number(BigInt.asIntN(64, ~BigInt(this.number(value))));
      }
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
    if (operator === ".") return this.join(toText(left), toText(right));
    if (operator === "->") return itemOf(left, right);
    if (operator === ",") return this.budget.check(joinArrays(left, right));
    const arithmetic = ARITHMETIC[operator];
    if (arithmetic) {
      const address = addressArithmetic(operator, left, right);
      if (address !== undefined) return address;
      const divisor = this.number(right);
      if ((operator === "/" || operator === "%") && divisor === 0)
        throw new RouterOsError("division by zero");
      return arithmetic(this.number(left), divisor);
    }
    // Matches are bounded one by one (regex.ts); many in one statement take turns as statements do.
    if (operator === "~" && performance.now() >= this.yieldAt) await this.pause(expr);
    return compare(operator, left, right);
  }

  /** Two strings joined, once the budget has room for the result. */
  private join(left: string, right: string): string {
    this.budget.admit(textBytes(left.length + right.length));
    return left + right;
  }

  private number(value: RosValue): number {
    const number = toNumber(value);
    if (number === undefined) throw new RouterOsError(`cannot convert ${toText(value)} to number`);
    return number;
  }
}

/** Whether a `where` condition's part reads a property of the item under test. */
function readsProperty(expr: Expr): boolean {
  switch (expr.type) {
    case "property":
      return true;
    case "not":
    case "negate":
    case "invert":
      return readsProperty(expr.operand);
    case "binary":
      return readsProperty(expr.left) || readsProperty(expr.right);
    case "concat":
      return expr.parts.some(readsProperty);
    default:
      return false;
  }
}

/** A function declared with `do={...}` as a value (stored in an array, passed on): one object per body. */
const codeValues = new WeakMap<Block, RosCode>();
function codeValue(body: Block): RosCode {
  let code = codeValues.get(body);
  if (!code) {
    code = new RosCode(body, "");
    codeValues.set(body, code);
  }
  return code;
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
  await interpreter.main(script.body);
  return { output: interpreter.output };
}
