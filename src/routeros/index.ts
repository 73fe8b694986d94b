/** The RouterOS script language: parse, run, quote and build commands. */

export { type BuildOptions, type BuildValue, buildCommand } from "./build/builder.js";
export { RouterOsError } from "./errors.js";
export type { Block, Expr, Script, Statement } from "./language/ast.js";
export { COMMON_VERBS, permissiveCatalog } from "./language/default-catalog.js";
export type {
  CommandCall,
  CommandCatalog,
  CommandHost,
  CommandResult,
  ItemProperties,
  RosValue,
} from "./language/host.js";
export { type Token, tokenize } from "./language/lexer.js";
export { FLAG_WORDS, type ParseOptions, parseScript } from "./language/parser.js";
export { quoteString, quoteValue } from "./language/quote.js";
export { type RunOptions, type RunResult, runScript } from "./runtime/interpreter.js";
export type { Cell } from "./runtime/scope.js";
