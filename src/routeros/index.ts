/** The RouterOS script language: parse, run, quote and build commands. */
export type { Block, Expr, Script, Statement } from "./ast.js";
export { type BuildOptions, type BuildValue, buildCommand } from "./builder.js";
export { COMMON_VERBS, permissiveCatalog } from "./default-catalog.js";
export { RouterOsError } from "./errors.js";
export type {
  CommandCall,
  CommandCatalog,
  CommandHost,
  CommandResult,
  ItemProperties,
  RosValue,
} from "./host.js";
export { type RunOptions, type RunResult, runScript } from "./interpreter.js";
export { type Token, tokenize } from "./lexer.js";
export { FLAG_WORDS, type ParseOptions, parseScript } from "./parser.js";
export { quoteString, quoteValue } from "./quote.js";
export type { Cell } from "./scope.js";
