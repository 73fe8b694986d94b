/**
 * Global commands (`:local`, `:put`, `:if`, ...): the arguments are read like any command's, then checked
 * against what each command takes. Bare words are typed here (`:local n 3` holds a number).
 */
import type { DataCommandName, Expr, FunctionName, LogLevel, Statement } from "./ast.js";
import { GlobalArguments } from "./global-arguments.js";
import type { Token } from "./lexer.js";
import type { ParseContext } from "./parse-context.js";
import { parseRuntimeCommand } from "./parse-runtime.js";

const LOG_LEVELS: ReadonlySet<string> = new Set(["info", "warning", "error", "debug"]);
const FUNCTIONS: Readonly<Record<FunctionName, { min: number; max: number }>> = {
  len: { min: 1, max: 1 },
  typeof: { min: 1, max: 1 },
  tostr: { min: 1, max: 1 },
  tonum: { min: 1, max: 1 },
  pick: { min: 2, max: 3 },
  toarray: { min: 1, max: 1 },
  find: { min: 2, max: 3 },
  totime: { min: 1, max: 1 },
  tonsec: { min: 1, max: 1 },
  tocrlf: { min: 1, max: 1 },
  jobname: { min: 0, max: 0 },
  toip: { min: 1, max: 1 },
  toip6: { min: 1, max: 1 },
  tobool: { min: 1, max: 1 },
  tolf: { min: 1, max: 1 },
};

/** Value commands of named arguments (`[:rndnum from=1 to=6]`, `[:convert $x to=hex]`), as 7.24's tree lists them. */
const DATA_COMMANDS: Readonly<Record<DataCommandName, readonly string[]>> = {
  convert: ["value", "from", "from-scheme", "to", "to-scheme", "transform", "transform-scheme"],
  serialize: ["value", "to", "delimiter", "options", "order", "file-name"],
  deserialize: ["value", "from", "delimiter", "options"],
  rndstr: ["from", "length"],
  rndnum: ["from", "to"],
};

/** The named arguments each global command takes; any other `name=` is a syntax error. */
const ACCEPTED: Readonly<Record<string, readonly string[]>> = {
  ...DATA_COMMANDS,
  if: ["do", "else"],
  foreach: ["in", "do"],
  for: ["from", "to", "step", "do"],
  while: ["do"],
  do: ["do", "on-error", "while"],
  onerror: ["in", "do"],
  delay: ["delay-time"],
  // `:local f do={...}` declares a function.
  local: ["do"],
  global: ["do"],
  set: ["do"],
  time: ["command"],
  parse: ["value"],
  execute: ["script", "file", "as-string"],
  retry: ["command", "delay", "max", "on-error"],
  resolve: ["domain-name", "server", "server-port", "type"],
};

/** Where a `{ }` is a function body: `do=` of a declaration; what `:execute` runs (it sees no caller local). */
const isDoBody = (name: string | undefined) => name === "do";
const isExecuteBody = (name: string | undefined) => name === undefined || name === "script";

export function parseGlobal(parser: ParseContext, token: Token): Statement {
  const command = token.text.slice(1);
  const at = { line: token.line, column: token.column };
  const declaresFunction = command === "local" || command === "global" || command === "set";
  const isDataCommand = Object.hasOwn(DATA_COMMANDS, command);
  const isValueFunction = Object.hasOwn(FUNCTIONS, command) || isDataCommand;
  const firstIsArray = command === "put" || command === "return";
  const { list } = parser.parseArguments({
    typed: true,
    where: false,
    ...(declaresFunction
      ? { functionBody: isDoBody }
      : command === "execute"
        ? { functionBody: isExecuteBody }
        : {}),
    // The loop variable exists inside the loop body only, which is parsed after its name.
    isArray: (name, position) =>
      (name === "in" && command !== "onerror") ||
      (name === "value" && isDataCommand) ||
      (name === undefined &&
        ((position === 1 && declaresFunction) || (position === 0 && firstIsArray) || isValueFunction)),
    onArgument: (arg) => {
      const value = arg.value;
      if (
        (command === "foreach" || command === "for") &&
        arg.name === undefined &&
        "type" in value &&
        value.type === "literal" &&
        value.word
      ) {
        parser.declareLoopVariable(value.word);
      }
      // The error variable: declared before the blocks are parsed, so `do={ :put $e }` knows it.
      if (
        command === "onerror" &&
        arg.name === undefined &&
        "type" in value &&
        value.type === "literal" &&
        value.word
      )
        parser.declare(value.word);
    },
  });
  const args = new GlobalArguments(
    parser,
    at,
    list,
    Object.hasOwn(ACCEPTED, command) ? (ACCEPTED[command] ?? []) : [],
  );
  switch (command) {
    case "local":
    case "global": {
      const code = args.block(args.option("do"));
      args.most(code ? 1 : 2);
      const name = args.name(0);
      const value = args.at(1);
      parser.declare(name);
      return {
        kind: "declare",
        ...at,
        scope: command,
        name,
        ...(value ? { value } : {}),
        ...(code ? { code } : {}),
      };
    }
    case "set": {
      const code = args.block(args.option("do"));
      args.most(code ? 1 : 2);
      const target = args.required(args.at(0));
      // `:set ($list->2) value`, `:set ($a->"k"->0) value`: one item of the array in a variable.
      const path: Expr[] = [];
      let root = target;
      while (root.type === "binary" && root.operator === "->") {
        path.unshift(root.right);
        root = root.left;
      }
      if (path.length > 0 && root.type !== "variable") throw parser.fail("syntax error", target);
      // `:set $name value` sets `name` as `:set name value` does (scripts of v6 days write it so).
      const name = root.type === "variable" ? root.name : args.name(0);
      if (!parser.isDeclared(name) && !parser.mayBeArgument())
        throw parser.fail("syntax error", args.required(args.at(0)));
      const value = args.at(1);
      return {
        kind: "set",
        ...at,
        name,
        ...(path.length > 0 ? { path } : {}),
        ...(value ? { value } : {}),
        ...(code ? { code } : {}),
      };
    }
    case "return": {
      args.most(1);
      const value = args.at(0);
      return { kind: "return", ...at, ...(value ? { value } : {}) };
    }
    case "put": {
      args.most(1);
      const value = args.at(0);
      return { kind: "put", ...at, ...(value ? { value } : {}) };
    }
    case "log": {
      args.most(2);
      const level = args.name(0);
      if (!LOG_LEVELS.has(level)) throw parser.fail(`bad command name ${level}`, args.required(args.at(0)));
      const message = args.at(1) ?? { type: "literal", ...at, value: "" };
      return { kind: "log", ...at, level: level as LogLevel, message };
    }
    case "delay":
      args.most(1);
      return {
        kind: "delay",
        ...at,
        duration: args.required(args.at(0) ?? args.expr(args.option("delay-time"))),
      };
    case "error":
      args.most(1);
      return { kind: "error", ...at, message: args.required(args.at(0)) };
    case "if": {
      args.most(1);
      const otherwise = args.block(args.option("else"));
      return {
        kind: "if",
        ...at,
        condition: args.required(args.at(0)),
        body: args.required(args.block(args.option("do"))),
        ...(otherwise ? { otherwise } : {}),
      };
    }
    case "foreach": {
      args.most(1);
      // `:foreach key,value in=$a`: the key (or position) of each item, then the item.
      const names = args.name(0).split(",");
      if (names.length > 2 || names.some((name) => name === ""))
        throw parser.fail("syntax error", args.required(args.at(0)));
      const [first = "", second] = names;
      return {
        kind: "foreach",
        ...at,
        ...(second !== undefined ? { key: first } : {}),
        name: second ?? first,
        items: args.required(args.expr(args.option("in"))),
        body: args.required(args.block(args.option("do"))),
      };
    }
    case "for": {
      args.most(1);
      const step = args.expr(args.option("step"));
      return {
        kind: "for",
        ...at,
        name: args.name(0),
        from: args.required(args.expr(args.option("from"))),
        to: args.required(args.expr(args.option("to"))),
        ...(step ? { step } : {}),
        body: args.required(args.block(args.option("do"))),
      };
    }
    case "while":
      args.most(1);
      return {
        kind: "while",
        ...at,
        condition: args.required(args.at(0)),
        body: args.required(args.block(args.option("do"))),
      };
    case "onerror": {
      const inline = list.filter((arg) => arg.name === undefined)[1];
      args.most(inline && !args.option("in") ? 2 : 1);
      return {
        kind: "onerror",
        ...at,
        name: args.name(0),
        body: args.required(args.block(args.option("in") ?? inline)),
        handler: args.required(args.block(args.option("do"))),
      };
    }
    case "retry": {
      const inline = list.find((arg) => arg.name === undefined);
      args.most(inline && !args.option("command") ? 1 : 0);
      const delay = args.expr(args.option("delay"));
      const max = args.expr(args.option("max"));
      const onError = args.block(args.option("on-error"));
      return {
        kind: "retry",
        ...at,
        body: args.required(args.block(args.option("command") ?? inline)),
        ...(delay ? { delay } : {}),
        ...(max ? { max } : {}),
        ...(onError ? { onError } : {}),
      };
    }
    case "resolve":
      args.most(1);
      return {
        kind: "resolve",
        ...at,
        name: args.required(args.at(0) ?? args.expr(args.option("domain-name"))),
      };
    case "timestamp":
      args.most(0);
      return { kind: "timestamp", ...at };
    case "exit":
      args.most(0);
      return { kind: "quit", ...at };
    case "time":
    case "parse":
    case "execute":
    case "environment":
      return parseRuntimeCommand(parser, command, at, args, list);
    case "convert":
    case "serialize":
    case "deserialize":
    case "rndstr":
    case "rndnum": {
      // The value may be written unnamed (`[:convert $x to=hex]`) or as `value=`, not both.
      const accepted = DATA_COMMANDS[command];
      args.most(accepted.includes("value") && !args.option("value") ? 1 : 0);
      const value = args.at(0) ?? args.expr(args.option("value"));
      const named: { name: string; value: Expr }[] = [];
      for (const name of accepted) {
        const expr = name === "value" ? undefined : args.expr(args.option(name));
        if (expr) named.push({ name, value: expr });
      }
      return { kind: "data", ...at, name: command, ...(value ? { value } : {}), named };
    }
    case "do": {
      args.most(1);
      const onError = args.block(args.option("on-error"));
      const condition = args.expr(args.option("while"));
      const body = args.required(
        args.block(args.option("do")) ?? args.block(list.find((arg) => arg.name === undefined)),
      );
      return {
        kind: "do",
        ...at,
        body,
        ...(onError ? { onError } : {}),
        ...(condition ? { while: condition } : {}),
      };
    }
    default: {
      const signature = FUNCTIONS[command as FunctionName];
      if (!Object.hasOwn(FUNCTIONS, command) || signature === undefined) {
        throw parser.fail(`bad command name ${command}`, { line: token.line, column: token.column + 1 });
      }
      args.most(signature.max);
      const values: Expr[] = [];
      for (let i = 0; i < signature.max; i++) {
        const value = args.at(i);
        if (value) values.push(value);
      }
      if (values.length < signature.min) throw parser.fail("syntax error", at);
      return { kind: "function", ...at, name: command as FunctionName, args: values };
    }
  }
}
