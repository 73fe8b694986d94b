/**
 * Recursive-descent parser for RouterOS scripts. It resolves menu paths with a `CommandCatalog` as it goes
 * (the current menu is lexical: a line holding only a menu path changes it for the lines after it, inside the
 * enclosing `{ }` block), and checks at parse time that every `$variable` was declared and that every named
 * argument is one its command takes, as RouterOS does: a script with either mistake runs no line at all.
 */

import { RouterOsError } from "../errors.js";
import { MAX_NESTING, MAX_SOURCE_CHARS } from "../limits.js";
import type { Block, Expr, Position, Script, Statement } from "./ast.js";
import { permissiveCatalog } from "./default-catalog.js";
import type { CommandCatalog } from "./host.js";
import { Lexer, type LexMode, type Token } from "./lexer.js";
import { typeWord } from "./literal-word.js";
import type { Argument, ArgumentOptions, ParseContext } from "./parse-context.js";
import { parseExpression } from "./parse-expression.js";
import { parseGlobal } from "./parse-global.js";

export interface ParseOptions {
  /** Menu that relative commands start from. @default [] (the root) */
  readonly menu?: readonly string[];
  /**
   * Parse it as a function body (`:parse`, `:execute`): any `$name` is an argument, nil when not passed,
   * instead of a syntax error. @default false
   */
  readonly functionBody?: boolean;
}

/** Both conditions, the first when there is no second. */
function both(first: Expr | undefined, second: Expr): Expr {
  return first === undefined
    ? second
    : { type: "binary", line: first.line, column: first.column, operator: "and", left: first, right: second };
}

/**
 * Global commands RouterOS 7.24 lists at the root of its tree, written without the colon. `find`, `log`,
 * `export` and `import` are left out: at the root they are the host's commands and menus.
 */
const ROOT_GLOBALS: ReadonlySet<string> = new Set([
  "convert",
  "delay",
  "deserialize",
  "do",
  "error",
  "execute",
  "exit",
  "for",
  "foreach",
  "global",
  "if",
  "jobname",
  "len",
  "local",
  "onerror",
  "parse",
  "pick",
  "put",
  "resolve",
  "retry",
  "return",
  "rndnum",
  "rndstr",
  "serialize",
  "set",
  "timestamp",
  "toarray",
  "tocrlf",
  "tonsec",
  "tonum",
  "tostr",
  "totime",
  "typeof",
  "while",
]);

/**
 * Bare words after a host verb that are flags (`print detail`), not unnamed arguments (`set ether1`), when the
 * catalog says the command takes them: `remove detail` names an item called `detail`.
 */
export const FLAG_WORDS: ReadonlySet<string> = new Set([
  "detail",
  "terse",
  "compact",
  "verbose",
  "brief",
  "count-only",
  "without-paging",
  "as-value",
  "value-list",
  "show-sensitive",
  "hide-sensitive",
  "once",
  "follow",
  "follow-only",
  "stats",
  "stats-detail",
]);

export type { Argument } from "./parse-context.js";

const END_KINDS = new Set(["eol", ";", "]", "}", ")", "eof"]);

export class Parser implements ParseContext {
  readonly lexer: Lexer;
  private menu: readonly string[];
  /** Offset just past the `}` (or `]`) that closed the last block: where a block value's text ends. */
  private closedAt = 0;
  /**
   * The code as written between the braces of each block given as an argument's value (`source={ ... }`):
   * a menu command takes the value as that text, as RouterOS stores a script's source. Kept beside the tree,
   * not in it, so that two scripts doing the same compare equal however their blocks are spaced.
   */
  private readonly blockTexts = new WeakMap<Block, string>();
  private readonly scopes: Set<string>[] = [new Set()];
  /** Open scopes (function bodies) in `scopes`: any `$name` there may be an argument. */
  private openScopes = 0;
  private readonly openFlags: boolean[] = [false];
  /** The next `{ }` block (or the whole script, when set before it is parsed) is a function body. */
  private functionBodyNext: boolean;
  private depth = 0;
  /** The loop variables the next `{ }` block declares (`:foreach k,v in=... do={ $v }`); see declareLoopVariable. */
  private loopVariables: readonly string[] | undefined;

  constructor(
    readonly source: string,
    private readonly catalog: CommandCatalog,
    menu: readonly string[],
    /** Parse the whole source as a function body (`ParseOptions.functionBody`). */
    functionBody = false,
  ) {
    this.lexer = new Lexer(source);
    this.menu = menu;
    this.functionBodyNext = functionBody;
  }

  peek(mode: LexMode = "command"): Token {
    return this.lexer.peek(mode);
  }
  next(mode: LexMode = "command"): Token {
    return this.lexer.next(mode);
  }
  fail(text: string, at: Position): RouterOsError {
    return new RouterOsError(text, at.line, at.column);
  }
  isEnd(token: Token): boolean {
    return END_KINDS.has(token.kind);
  }
  /** True when the character right after `token` belongs to the same argument (no blank in between). */
  glued(token: Token, char?: string): boolean {
    const code = this.lexer.source.charCodeAt(token.end);
    if (char !== undefined) return code === char.charCodeAt(0);
    // Anything but the end, a blank, a line end, `;`, `]`, `}` or `)` continues the argument.
    return !(
      Number.isNaN(code) ||
      code === 32 ||
      code === 9 ||
      code === 10 ||
      code === 13 ||
      code === 59 ||
      code === 93 ||
      code === 125 ||
      code === 41
    );
  }

  /**
   * Enters one level of nesting (a bracket, a unary operator, an operator of a chain) at `at`. Every recursive
   * path of the parser passes here, so input nested beyond `MAX_NESTING` fails with a parse error instead of
   * overflowing the stack. Pair each call with `leave()` (or let the error end the parse).
   */
  enter(at: Position): void {
    if (++this.depth > MAX_NESTING) throw this.fail(`too deeply nested, at most ${MAX_NESTING} levels`, at);
  }
  leave(count = 1): void {
    this.depth -= count;
  }

  declare(name: string): void {
    this.scopes[this.scopes.length - 1]?.add(name);
  }
  isDeclared(name: string): boolean {
    return this.scopes.some((scope) => scope.has(name));
  }
  /** Inside a function body any name may be an argument the caller passes. */
  mayBeArgument(): boolean {
    return this.openScopes > 0;
  }
  declareLoopVariable(name: string): void {
    // `:foreach key,value in=$a`: both names are the loop's.
    this.loopVariables = name.split(",");
  }

  /** Statements until `close` (`}`, `]`) or the end of input, in a new variable and menu scope. */
  parseStatements(close: "}" | "]" | "eof", open: Position): Block {
    this.enter(open);
    const savedMenu = this.menu;
    const scope = new Set<string>();
    if (close === "}" && this.loopVariables !== undefined) {
      for (const name of this.loopVariables) scope.add(name);
      this.loopVariables = undefined;
    }
    this.scopes.push(scope);
    const functionBody = close !== "]" && this.functionBodyNext;
    this.functionBodyNext = false;
    this.openFlags.push(functionBody);
    if (functionBody) this.openScopes++;
    const statements: Statement[] = [];
    for (;;) {
      const token = this.lexer.peek("command", true);
      if (token.kind === "eol" || token.kind === ";") {
        this.lexer.next("command", true);
        continue;
      }
      if (token.kind === close) {
        if (close !== "eof") this.lexer.next("command", true);
        this.closedAt = token.end;
        break;
      }
      if (token.kind === "eof") throw this.fail("syntax error", token);
      if (token.kind === "]" || token.kind === "}" || token.kind === ")")
        throw this.fail("expected end of command", token);
      const statement = this.parseStatement();
      if (statement) statements.push(statement);
      const after = this.peek();
      if (!this.isEnd(after)) throw this.fail("expected end of command", after);
    }
    this.scopes.pop();
    if (this.openFlags.pop()) this.openScopes--;
    this.menu = savedMenu;
    this.leave();
    return { line: open.line, column: open.column, statements };
  }

  private parseStatement(): Statement | undefined {
    const token = this.lexer.next("command", true);
    if (token.kind === "{")
      return {
        kind: "block",
        line: token.line,
        column: token.column,
        block: this.parseStatements("}", token),
      };
    if (token.kind === "var") return this.parseCall(token);
    if (token.kind === "[") return this.parseInvoke(token, this.substitution(token));
    // `($functions->$name) arg`: the code an expression gives, run with the arguments that follow.
    if (token.kind === "(") return this.parseInvoke(token, this.parseParenthesized(token));
    if (token.kind !== "word") throw this.fail("syntax error", token);
    if (token.text.startsWith(":") && !token.escaped) return parseGlobal(this, token);
    // The 7.24 tree has the global commands at the root without a colon too (`if (...) do={...}`, `return 1`).
    if (!token.escaped && this.menu.length === 0 && ROOT_GLOBALS.has(token.text))
      return parseGlobal(this, { ...token, text: `:${token.text}` });
    // `/rndstr length=8`: the same commands by their absolute path, from any menu.
    if (!token.escaped && token.text.startsWith("/") && ROOT_GLOBALS.has(token.text.slice(1)))
      return parseGlobal(this, { ...token, text: `:${token.text.slice(1)}` });
    if (
      !token.escaped &&
      (token.text === "/quit" || token.text === "quit") &&
      !this.catalog.hasCommand(this.menu, "quit")
    )
      return { kind: "quit", line: token.line, column: token.column };
    return this.parseHostCommand(token);
  }

  /** `[ ... ] a name=x` (or `( ... )`) as a statement: its value, run with the arguments when it is code. */
  private substitution(open: Token): Expr {
    return {
      type: "substitution",
      line: open.line,
      column: open.column,
      block: this.parseStatements("]", open),
    };
  }

  private parseInvoke(token: Token, callee: Expr): Statement {
    const { positional, named } = this.callArguments();
    return { kind: "invoke", line: token.line, column: token.column, callee, positional, named };
  }

  private callArguments(): {
    positional: Expr[];
    named: { name: string; value: Expr }[];
  } {
    const { list } = this.parseArguments({
      typed: true,
      where: false,
      isArray: (name) => name === undefined,
    });
    const positional: Expr[] = [];
    const named: { name: string; value: Expr }[] = [];
    for (const arg of list) {
      if ("statements" in arg.value) throw this.fail("syntax error", arg);
      if (arg.name === undefined) positional.push(arg.value);
      else named.push({ name: arg.name, value: arg.value });
    }
    return { positional, named };
  }

  /** `$f a b name=x`: a call of the function variable `f`. */
  private parseCall(token: Token): Statement {
    const callee = this.variable(token);
    if (callee.type !== "variable") throw this.fail("syntax error", token);
    const { positional, named } = this.callArguments();
    return { kind: "call", line: token.line, column: token.column, name: token.text, positional, named };
  }

  /**
   * The one menu or command under `path` that `segment` abbreviates (when the catalog lists names), as the
   * console accepts `/ip addr pr`. Asked only when `segment` is no whole name: an exact name always wins.
   */
  private abbreviation(path: readonly string[], segment: string): { menu?: string; verb?: string } {
    const matches = this.catalog.namesAt?.(path).filter((name) => name.startsWith(segment)) ?? [];
    const [only] = matches;
    if (matches.length !== 1 || only === undefined) return {};
    if (this.catalog.isMenu([...path, only])) return { menu: only };
    return this.catalog.hasCommand(path, only) ? { verb: only } : {};
  }

  /** Walks menu words from `first` on; ends on a verb (a command) or on a menu (a menu change). */
  private parseHostCommand(first: Token): Statement | undefined {
    let path: string[] = first.text.startsWith("/") ? [] : [...this.menu];
    let verb: string | undefined;
    let word: Token | undefined = first;
    while (word && verb === undefined) {
      let column = word.column;
      for (const segment of word.text.includes("/") ? word.text.split("/") : [word.text]) {
        const at = { line: word.line, column };
        column += segment.length + 1;
        if (segment === "") continue;
        if (verb !== undefined) throw this.fail(`bad command name ${segment}`, at);
        if (segment === "..") {
          path = path.slice(0, -1);
          continue;
        }
        if (word.escaped) throw this.fail(`bad command name ${segment}`, at);
        if (this.catalog.isMenu([...path, segment])) path.push(segment);
        else if (this.catalog.hasCommand(path, segment)) verb = segment;
        else {
          const resolved = this.abbreviation(path, segment);
          if (resolved.menu !== undefined) path.push(resolved.menu);
          else if (resolved.verb !== undefined) verb = resolved.verb;
          else throw this.fail(`bad command name ${segment}`, at);
        }
      }
      if (verb !== undefined) break;
      const next = this.peek();
      if (this.isEnd(next)) {
        this.menu = path;
        return undefined;
      }
      if (next.kind === "{") {
        // `/ip firewall filter { add ...; add ... }`: the block's commands are relative to that menu.
        this.next();
        const outer = this.menu;
        this.menu = path;
        const block = this.parseStatements("}", next);
        this.menu = outer;
        return { kind: "block", line: first.line, column: first.column, block };
      }
      if (next.kind !== "word" || this.glued(next)) throw this.fail("syntax error", next);
      word = this.next();
    }
    const command = verb as string;
    const takes = (name: string) => this.catalog.hasArgument(path, command, name);
    // `add addr=...`: a unique abbreviation of an argument name the catalog lists.
    const expand = (name: string) => {
      if (takes(name)) return name;
      const matches = this.catalog.argumentsOf?.(path, command).filter((arg) => arg.startsWith(name)) ?? [];
      return matches.length === 1 && matches[0] !== undefined ? matches[0] : name;
    };
    // `[find]` in `/ip address remove [find]` runs in the command's own menu.
    const outer = this.menu;
    this.menu = path;
    const abbreviates = this.catalog.argumentsOf !== undefined;
    const args = this.parseArguments({
      typed: false,
      where: takes("where"),
      isNamed: abbreviates ? (name) => takes(expand(name)) : takes,
      ...(abbreviates ? { expandName: expand } : {}),
    });
    this.menu = outer;
    const positional: Expr[] = [];
    const named: { name: string; value: Expr }[] = [];
    for (const arg of args.list) {
      if ("statements" in arg.value) {
        // `source={ ... }`: code checked as code, and given to the menu as the text it was written as.
        const text = this.blockTexts.get(arg.value);
        if (arg.name === undefined || text === undefined) throw this.fail("syntax error", arg);
        named.push({
          name: arg.name,
          value: { type: "literal", line: arg.line, column: arg.column, value: text },
        });
        continue;
      }
      if (arg.name !== undefined) named.push({ name: arg.name, value: arg.value });
      else if (
        arg.value.type === "literal" &&
        arg.value.word !== undefined &&
        FLAG_WORDS.has(arg.value.word) &&
        takes(arg.value.word)
      ) {
        named.push({ name: arg.value.word, value: { ...arg.value, value: true } });
      } else positional.push(arg.value);
    }
    return {
      kind: "command",
      line: first.line,
      column: first.column,
      menu: path,
      verb: command,
      positional,
      named,
      ...(args.where ? { where: args.where } : {}),
    };
  }

  /**
   * Arguments up to the end of the command. `typed` turns bare words into numbers and booleans (global
   * commands); host commands get the text as written. `where` lets a bare `where` start a condition.
   */
  parseArguments(options: ArgumentOptions): { list: Argument[]; where?: Expr } {
    const list: Argument[] = [];
    let positional = 0;
    let group: string | undefined;
    // `find comment=x remote-address!="1.2.3.4"`: each `name!=value` is a condition, as after `where`.
    let unequal: Expr | undefined;
    for (;;) {
      const token = this.peek();
      if (this.isEnd(token)) return unequal ? { list, where: unequal } : { list };
      if (
        options.where &&
        token.kind === "word" &&
        token.text === "where" &&
        !token.escaped &&
        !this.glued(token)
      ) {
        this.next();
        return { list, where: both(unequal, parseExpression(this, { where: true })) };
      }
      if (options.where && token.kind === "word" && token.text.endsWith("!") && this.isUnequal(token)) {
        unequal = both(unequal, this.parseUnequal(token, options));
        continue;
      }
      const comparison =
        options.where && token.kind === "word" ? this.comparisonArgument(token, options) : undefined;
      if (comparison) {
        unequal = both(unequal, comparison);
        continue;
      }
      let name: string | undefined;
      if (token.kind === "word" && !token.escaped && this.glued(token, "=")) {
        // `configuration.mode=ap .ssid=home`: a name starting with a dot continues the group named before it.
        const written = token.text.startsWith(".") && group !== undefined ? group + token.text : token.text;
        if (options.isNamed && !options.isNamed(written)) throw this.fail("expected end of command", token);
        name = options.expandName ? options.expandName(written) : written;
        const dot = name.indexOf(".");
        if (dot > 0) group = name.slice(0, dot);
        this.next();
        this.next();
      }
      if (options.functionBody?.(name)) this.functionBodyNext = true;
      const array = options.isArray?.(name, positional) ?? false;
      if (name === undefined) positional++;
      const value = this.parseValue(options.typed, name !== undefined, array);
      this.functionBodyNext = false;
      const arg: Argument = {
        line: token.line,
        column: token.column,
        value,
        ...(name !== undefined ? { name } : {}),
      };
      options.onArgument?.(arg);
      list.push(arg);
    }
  }

  /**
   * `find name~"^ether"`, `find mtu>1400`, `find mtu>=1400`: a comparison written as an argument, a condition
   * as after `where`; a name the command does not take fails. Undefined for any other word.
   */
  private comparisonArgument(token: Token, options: ArgumentOptions): Expr | undefined {
    if (token.escaped) return undefined;
    const match = /^([a-z.][a-z0-9.-]*)([~<>])(.*)$/.exec(token.text);
    if (!match) return undefined;
    const [, property = "", sign = "", rest = ""] = match;
    // A name the command does not take: the console stops there, as at an unknown `name=`.
    if (options.isNamed && !options.isNamed(property)) throw this.fail("expected end of command", token);
    const name = options.expandName ? options.expandName(property) : property;
    const at = { line: token.line, column: token.column };
    const left: Expr = { type: "property", ...at, name };
    let operator = sign as "~" | "<" | ">" | "<=" | ">=";
    this.next();
    let right: Expr;
    if (rest !== "") right = { type: "literal", ...at, value: rest, word: rest };
    else {
      if (sign !== "~" && this.glued(token, "=")) {
        operator = `${sign}=` as "<=" | ">=";
        this.next();
      }
      right = this.parseValue(false, true) as Expr;
    }
    return { type: "binary", ...at, operator, left, right };
  }

  private isUnequal(token: Token): boolean {
    return !token.escaped && token.text.length > 1 && this.glued(token, "=");
  }

  /** `name!=value` among a command's arguments: the condition that the item's `name` differs. */
  private parseUnequal(token: Token, options: ArgumentOptions): Expr {
    const property = token.text.slice(0, -1);
    if (options.isNamed && !options.isNamed(property)) throw this.fail("expected end of command", token);
    this.next();
    this.next();
    const value = this.parseValue(false, true) as Expr;
    const at = { line: token.line, column: token.column };
    const name = options.expandName ? options.expandName(property) : property;
    return { type: "binary", ...at, operator: "!=", left: { type: "property", ...at, name }, right: value };
  }

  /** One argument value: adjacent pieces (`wan$x`, `"a"[:len $b]`) joined, or a `{ }` block. */
  private parseValue(typed: boolean, afterEquals: boolean, array = false, first?: Expr): Expr | Block {
    const parts: Expr[] = first ? [first] : [];
    const start = this.peek();
    if (afterEquals && (start.spaced || this.isEnd(start))) {
      return { type: "literal", value: "", line: start.line, column: start.column };
    }
    if (first && (start.spaced || this.isEnd(start))) return first;
    if (start.kind === "{" && !first) {
      this.next();
      if (array) return this.parseArray(start);
      const block = this.parseStatements("}", start);
      this.blockTexts.set(block, this.lexer.source.slice(start.end, this.closedAt - 1));
      return block;
    }
    for (
      let token = start;
      parts.length === 0 || (!token.spaced && !this.isEnd(token));
      token = this.peek()
    ) {
      parts.push(this.parsePiece(typed));
    }
    if (parts.length === 1) return parts[0] as Expr;
    const at = first ?? start;
    return { type: "concat", line: at.line, column: at.column, parts };
  }

  private parsePiece(typed: boolean): Expr {
    const token = this.next();
    const { line, column } = token;
    switch (token.kind) {
      case "word": {
        const plain = !token.escaped;
        const value = typed && plain ? typeWord(token.text) : token.text;
        return { type: "literal", line, column, value, word: plain ? token.text : undefined };
      }
      case "=":
        return { type: "literal", line, column, value: "=", word: undefined };
      case "quote":
        return this.parseString(token);
      case "var":
        return this.variable(token);
      case "[":
        return { type: "substitution", line, column, block: this.parseStatements("]", token) };
      case "(":
        return this.parseParenthesized(token);
      default:
        throw this.fail("syntax error", token);
    }
  }

  /**
   * After `{` where an array belongs: values separated by `;` or new lines, up to `}`; an item written
   * `key=value` (`"name"="wan"`, `mtu=1500`) has a key. A `#` line between items is a comment.
   */
  parseArray(open: Token): Expr {
    this.enter(open);
    const items: Expr[] = [];
    const keys: (Expr | undefined)[] = [];
    let keyed = false;
    for (;;) {
      const token = this.lexer.peek("command", true);
      if (token.kind === ";" || token.kind === "eol") this.lexer.next("command", true);
      else if (token.kind === "}") break;
      else if (this.isEnd(token)) throw this.fail("syntax error", token);
      else {
        const { key, value } = this.arrayItem(token);
        if (key) keyed = true;
        keys.push(key);
        items.push(value);
      }
    }
    this.next();
    this.leave();
    return { type: "array", line: open.line, column: open.column, items, ...(keyed ? { keys } : {}) };
  }

  /**
   * An array item. `key=value` (`"name"="wan"`, `mtu=1500`) has a key: a word or a string glued to `=`. A string
   * not followed by `=` is the start of the item's value.
   */
  private arrayItem(token: Token): { key?: Expr; value: Expr } {
    const { line, column } = token;
    if (token.kind === "word" && !token.escaped && this.glued(token, "=")) {
      this.next();
      this.next();
      return { key: { type: "literal", line, column, value: token.text }, value: this.arrayValue(true) };
    }
    if (token.kind !== "quote") return { value: this.arrayValue(false) };
    this.next();
    const text = this.parseString(token);
    const after = this.peek();
    if (after.kind === "=" && !after.spaced) {
      this.next();
      return { key: text, value: this.arrayValue(true) };
    }
    return { value: this.parseValue(true, false, true, text) as Expr };
  }

  private arrayValue(afterEquals: boolean): Expr {
    return this.parseValue(true, afterEquals, true) as Expr;
  }

  variable(token: Token): Expr {
    // Inside a function body any name may be an argument (`$1`, `$name`), and the caller's locals are out of
    // reach, so a name without a value there is nil, as on the router.
    // `$0`, `$1`, ...: the arguments of a script run as a function (`[:parse $source]`, `$0` its name); the
    // parser cannot tell where a script's text will run, so they are nil when it runs on its own.
    if (this.openScopes > 0 || isArgumentNumber(token.text))
      return { type: "variable", line: token.line, column: token.column, name: token.text, optional: true };
    if (!this.isDeclared(token.text)) {
      // RouterOS reports an undeclared variable at its name, just after the `$`.
      throw this.fail("syntax error", { line: token.line, column: token.column + 1 });
    }
    return { type: "variable", line: token.line, column: token.column, name: token.text };
  }

  /** After `(`: an expression and the closing `)`. */
  parseParenthesized(open: Position): Expr {
    this.enter(open);
    let expr = parseExpression(this, { where: false });
    // `($list, $item)`: the items joined into one array.
    for (
      let next = this.peek("expression");
      next.kind === "op" && next.text === ",";
      next = this.peek("expression")
    ) {
      this.next("expression");
      const right = parseExpression(this, { where: false });
      expr = { type: "binary", line: expr.line, column: expr.column, operator: ",", left: expr, right };
    }
    const close = this.next("expression");
    if (close.kind !== ")") throw this.fail("syntax error", close);
    this.leave();
    return { ...expr, line: open.line, column: open.column };
  }

  /** After an opening `"`: text, `$var`, `$[...]` and `$(...)` until the closing quote. */
  parseString(open: Token): Expr {
    const parts: Expr[] = [];
    let text = "";
    for (;;) {
      const token = this.next("string");
      if (token.kind === "quote") break;
      if (token.kind === "eof") throw this.fail("expected end of command", open);
      if (token.kind === "text") {
        text += token.text;
        continue;
      }
      if (text !== "") parts.push({ type: "literal", line: open.line, column: open.column, value: text });
      text = "";
      if (token.kind === "var") parts.push(this.variable(token));
      else if (token.kind === "subst")
        parts.push({
          type: "substitution",
          line: token.line,
          column: token.column,
          block: this.parseStatements("]", token),
        });
      else parts.push(this.parseParenthesized(token));
    }
    if (parts.length === 0) return { type: "literal", line: open.line, column: open.column, value: text };
    if (text !== "") parts.push({ type: "literal", line: open.line, column: open.column, value: text });
    return { type: "concat", line: open.line, column: open.column, parts };
  }
}

function isArgumentNumber(name: string): boolean {
  return /^[0-9]+$/.test(name);
}

/** Parses a whole script. Throws `RouterOsError` with a position (`syntax error (line 1 column 17)`). */
export function parseScript(
  source: string,
  catalog: CommandCatalog = permissiveCatalog,
  options: ParseOptions = {},
): Script {
  if (source.length > MAX_SOURCE_CHARS)
    throw new RouterOsError(`script too long, at most ${MAX_SOURCE_CHARS} characters`, 1, 1);
  const parser = new Parser(source, catalog, options.menu ?? [], options.functionBody === true);
  return { source, body: parser.parseStatements("eof", { line: 1, column: 1 }) };
}
