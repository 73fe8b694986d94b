/**
 * `:time`, `:parse`, `:execute` and `:environment`: global commands about running code rather than values.
 * A missing argument fails as the console says it, naming the argument: `missing value(s) of argument(s)
 * script`.
 */
import type { Position, Statement } from "./ast.js";
import type { GlobalArguments } from "./global-arguments.js";
import type { Argument, ParseContext } from "./parse-context.js";

/** An unnamed argument written as the bare word `word` (a flag such as `as-string`, a verb such as `print`). */
function isWord(arg: Argument, word: string): boolean {
  return "type" in arg.value && arg.value.type === "literal" && arg.value.word === word;
}

function missing(parser: ParseContext, name: string, at: Position): Error {
  return parser.fail(`missing value(s) of argument(s) ${name}`, at);
}

export function parseRuntimeCommand(
  parser: ParseContext,
  command: "time" | "parse" | "execute" | "environment",
  at: Position,
  args: GlobalArguments,
  list: readonly Argument[],
): Statement {
  const unnamed = list.filter((arg) => arg.name === undefined);
  switch (command) {
    case "time": {
      args.most(1);
      const code = unnamed[0] ?? args.option("command");
      if (!code) throw missing(parser, "command", at);
      return { kind: "time", ...at, command: code.value };
    }
    case "parse": {
      args.most(1);
      const source = args.at(0) ?? args.expr(args.option("value"));
      if (!source) throw missing(parser, "value", at);
      return { kind: "parse", ...at, source };
    }
    case "execute": {
      // `as-string` is a flag: written bare, it is no script.
      const flag = unnamed.find((arg) => isWord(arg, "as-string"));
      const [first, extra] = unnamed.filter((arg) => arg !== flag);
      const named = args.option("script");
      if (extra || (first && named)) throw parser.fail("expected end of command", extra ?? named ?? at);
      const script = first ?? named;
      if (!script) throw missing(parser, "script", at);
      const file = args.expr(args.option("file"));
      return {
        kind: "execute",
        ...at,
        script: script.value,
        ...(file ? { file } : {}),
        asString: flag !== undefined || args.option("as-string") !== undefined,
      };
    }
    case "environment": {
      const [verb, extra] = unnamed;
      if (!verb) throw parser.fail("syntax error", at);
      if (!isWord(verb, "print")) {
        const word = "type" in verb.value && verb.value.type === "literal" ? verb.value.word : undefined;
        throw parser.fail(word === undefined ? "syntax error" : `bad command name ${word}`, verb);
      }
      if (extra) throw parser.fail("expected end of command", extra);
      return { kind: "environment", ...at };
    }
  }
}
