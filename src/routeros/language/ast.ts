/**
 * The parsed form of a RouterOS script. Menus are resolved at parse time (the current menu is lexical, like
 * `export` output relies on), so a `CommandNode` carries an absolute menu and a verb. Every node keeps its
 * 1-based position for error messages.
 */
import type { RosValue } from "./host.js";

export interface Position {
  readonly line: number;
  readonly column: number;
}

export type BinaryOperator =
  | "="
  | "!="
  | "<"
  | ">"
  | "<="
  | ">="
  | "~"
  | "in"
  | "and"
  | "or"
  | "+"
  | "-"
  | "*"
  | "/"
  | "%"
  | "."
  /** Bitwise, on numbers: `$flags & 4`, `1 << $bit`. */
  | "&"
  | "|"
  | "^"
  | "<<"
  | ">>"
  /** `($list, $item)`: one array of the items of both sides. */
  | ","
  /** `$a->"key"`, `$a->0`: an item of an array. */
  | "->";

export type Expr =
  /** A literal; `word` keeps the unquoted text a bare word was written as (typed values lose it). */
  | (Position & { readonly type: "literal"; readonly value: RosValue; readonly word?: string })
  /** `optional`: an undeclared name inside a `do={...}` function body (an argument): nil when not passed. */
  | (Position & { readonly type: "variable"; readonly name: string; readonly optional?: boolean })
  /** A property of the item under test, only inside `where`. */
  | (Position & { readonly type: "property"; readonly name: string })
  /** Adjacent pieces joined into one string: `"a$b"`, `name=wan$x`. */
  | (Position & { readonly type: "concat"; readonly parts: readonly Expr[] })
  /** `[ ... ]`: the value of the last command inside. */
  | (Position & { readonly type: "substitution"; readonly block: Block })
  /**
   * `{"a";"b"}` where a value is expected (`:foreach x in={...}`, `:local list {...}`); `keys`, when any item
   * is written `key=value` (`{"name"="wan";mtu=1500}`), holds each item's key (undefined for the unkeyed).
   */
  | (Position & {
      readonly type: "array";
      readonly items: readonly Expr[];
      readonly keys?: readonly (Expr | undefined)[];
    })
  | (Position & { readonly type: "not"; readonly operand: Expr })
  | (Position & { readonly type: "negate"; readonly operand: Expr })
  /** `~$mask`: every bit flipped, of an address (`~0.0.0.255`) or a number. */
  | (Position & { readonly type: "invert"; readonly operand: Expr })
  | (Position & {
      readonly type: "binary";
      readonly operator: BinaryOperator;
      readonly left: Expr;
      readonly right: Expr;
    });

export interface Block extends Position {
  readonly statements: readonly Statement[];
}

/** A command of a menu, handed to the host. */
export interface CommandNode extends Position {
  readonly kind: "command";
  readonly menu: readonly string[];
  readonly verb: string;
  readonly positional: readonly Expr[];
  readonly named: readonly { readonly name: string; readonly value: Expr }[];
  readonly where?: Expr;
}

export type LogLevel = "info" | "warning" | "error" | "debug";

export type Statement =
  | CommandNode
  | (Position & { readonly kind: "block"; readonly block: Block })
  | (Position & {
      readonly kind: "declare";
      readonly scope: "local" | "global";
      readonly name: string;
      readonly value?: Expr;
      /** `:local f do={...}`: the variable holds a function. */
      readonly code?: Block;
    })
  | (Position & {
      readonly kind: "set";
      readonly name: string;
      /** `:set ($name->key) value` (`->key1->key2` for an array inside): sets one item of the array in `name`. */
      readonly path?: readonly Expr[];
      readonly value?: Expr;
      readonly code?: Block;
    })
  /** `$f a b name=x` (also as `[$f ...]`): runs the function in `$f` with `$1 $2` and `$name` set. */
  | (Position & {
      readonly kind: "call";
      readonly name: string;
      readonly positional: readonly Expr[];
      readonly named: readonly { readonly name: string; readonly value: Expr }[];
    })
  /**
   * `[ ... ]` written as a statement: the value is computed (the commands inside run); when it is code,
   * as `[[:parse $source] text="hi"]`, the code runs with the arguments that follow.
   */
  | (Position & {
      readonly kind: "invoke";
      readonly callee: Expr;
      readonly positional: readonly Expr[];
      readonly named: readonly { readonly name: string; readonly value: Expr }[];
    })
  /** `:return value`: ends the function (or the script) with a value. */
  | (Position & { readonly kind: "return"; readonly value?: Expr })
  /** `/quit` and `:exit`: end the script; what ran stays applied. */
  | (Position & { readonly kind: "quit" })
  | (Position & { readonly kind: "put"; readonly value?: Expr })
  | (Position & { readonly kind: "log"; readonly level: LogLevel; readonly message: Expr })
  | (Position & { readonly kind: "delay"; readonly duration: Expr })
  | (Position & {
      readonly kind: "if";
      readonly condition: Expr;
      readonly body: Block;
      readonly otherwise?: Block;
    })
  | (Position & {
      readonly kind: "foreach";
      /** `:foreach k,v in=...`: the variable of each item's key (its position when it has none). */
      readonly key?: string;
      readonly name: string;
      readonly items: Expr;
      readonly body: Block;
    })
  | (Position & {
      /** `:for i from=1 to=10 step=1 do={...}`: `to` included; without `step`, counts down when from > to. */
      readonly kind: "for";
      readonly name: string;
      readonly from: Expr;
      readonly to: Expr;
      readonly step?: Expr;
      readonly body: Block;
    })
  | (Position & { readonly kind: "while"; readonly condition: Expr; readonly body: Block })
  | (Position & {
      readonly kind: "do";
      readonly body: Block;
      readonly onError?: Block;
      readonly while?: Expr;
    })
  /**
   * `:onerror e in={...} do={...}`, also `:onerror e {...} do={...}` (RouterOS 7.13+): `do` runs with `$e` the
   * error text when the block fails.
   */
  | (Position & {
      readonly kind: "onerror";
      readonly name: string;
      readonly body: Block;
      readonly handler: Block;
    })
  /**
   * `:retry {...} delay=1s max=3 on-error={...}` (RouterOS 7.13+): runs the block until it succeeds, at most
   * `max` times with `delay` between tries; then `on-error` runs, or the last error stands.
   */
  | (Position & {
      readonly kind: "retry";
      readonly body: Block;
      readonly delay?: Expr;
      readonly max?: Expr;
      readonly onError?: Block;
    })
  /** `:resolve name` (also `domain-name=`): the address the router's DNS gives for a name. */
  | (Position & { readonly kind: "resolve"; readonly name: Expr })
  /** `:timestamp`: the time since the Unix epoch, as a time. */
  | (Position & { readonly kind: "timestamp" })
  | (Position & { readonly kind: "error"; readonly message: Expr })
  /** `:time {...}`: how long the block (or the value of an expression) took, as a time. */
  | (Position & { readonly kind: "time"; readonly command: Block | Expr })
  /** `:parse "<source>"`: the source parsed into a code value, run later with `$f`. */
  | (Position & { readonly kind: "parse"; readonly source: Expr })
  /**
   * `:execute {...}` or `:execute script="<source>"`: runs it in the background as a script job and gives
   * the job's id; with `as-string`, runs it now and gives what it printed. `file=` keeps a job's output.
   */
  | (Position & {
      readonly kind: "execute";
      readonly script: Block | Expr;
      readonly file?: Expr;
      readonly asString: boolean;
    })
  /** `:environment print`: the router's global variables, one `name=value` line each. */
  | (Position & { readonly kind: "environment" })
  /**
   * `:convert`, `:serialize`, `:deserialize`, `:rndstr`, `:rndnum`: values built from named arguments
   * (`[:serialize to=json $config]`, `[:rndnum from=1 to=6]`); `value` is the one written unnamed or as `value=`.
   */
  | (Position & {
      readonly kind: "data";
      readonly name: DataCommandName;
      readonly value?: Expr;
      readonly named: readonly { readonly name: string; readonly value: Expr }[];
    })
  /** `:len`, `:typeof`, `:tostr`, `:tonum`, `:pick`, `:toarray`, `:find`: mostly used as `[:len $x]`. */
  | (Position & { readonly kind: "function"; readonly name: FunctionName; readonly args: readonly Expr[] });

export type DataCommandName = "convert" | "serialize" | "deserialize" | "rndstr" | "rndnum";

export type FunctionName =
  | "len"
  | "typeof"
  | "tostr"
  | "tonum"
  | "pick"
  | "toarray"
  | "find"
  | "totime"
  | "tonsec"
  | "tocrlf"
  | "jobname"
  | "toip"
  | "toip6"
  | "tobool"
  | "tolf";

export interface Script {
  readonly source: string;
  readonly body: Block;
}
