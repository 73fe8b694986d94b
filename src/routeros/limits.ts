/**
 * Limits that keep a hostile script from freezing or exhausting the process that runs it. RouterOS itself
 * has a few of them (a router has little memory); these are set so that no real configuration script comes
 * near them, while a runaway stops in milliseconds with an error that names the limit.
 */

/**
 * Nesting of `( ) [ ] { }`, quotes with `$( )`, unary operators and operator chains. The parser and the
 * interpreter recurse once per level, so this bounds their stack: about 900 nested `(` overflowed it. Real
 * scripts nest a handful of levels; long chains like `"a" . $b . "c"` count one level per operator.
 */
export const MAX_NESTING = 256;

/**
 * Characters in one word or one quoted string. Exports carry long strings (`source=` of a script, a
 * certificate), so this is generous; it keeps one token from growing into a string the engine cannot hold.
 */
export const MAX_TOKEN_CHARS = 1 << 20;

/** Characters in a whole script: a large `export` is a few hundred KiB. */
export const MAX_SOURCE_CHARS = 16 << 20;

/**
 * Bytes of script values a run may hold at once: every variable's value, the value being built, and the
 * output kept for the caller. A string counts two bytes a character (what the engine stores) and an array
 * eight bytes a slot on top of its items, counted as copies even when shared, because RouterOS copies arrays.
 * 4 MiB is far above what configuration scripts build (ids of a table, a few lines of text) and stops a
 * doubling loop after about 20 turns, in milliseconds.
 */
export const DEFAULT_MAX_MEMORY_BYTES = 4 << 20;

/** Nested calls of `do={...}` functions (each holds a scope and an interpreter frame). */
export const MAX_CALL_DEPTH = 100;

/**
 * Scripts one router runs in the background at once (`:execute`). Each is bounded by the limits above, and
 * all the jobs a script starts share its statement count; this bounds how many hold memory at the same time.
 */
export const MAX_BACKGROUND_JOBS = 16;

/**
 * Regular expressions of `~` (runtime/regex.ts). RE2 matches in time linear in the subject times the
 * pattern's compiled program, whatever the pattern, so these bound one match before it starts, at about what
 * a `find` over a table of tens of thousands of items takes anyway (a pattern built to defeat RE2's DFA runs
 * on its NFA, the slow end: docs/reliability.md has the figures). Patterns of configuration scripts are tens
 * of characters and compile to tens of instructions.
 * - the pattern's length, and its program's size (`(ab|cd){900}` is 13 characters and 6,302 instructions),
 *   which compiling costs in proportion to;
 * - the work of one match, (subject characters + 1) x instructions: a 16 KiB text against a pattern of 16
 *   instructions, a value of 256 characters against one of 1,000.
 */
export const MAX_REGEX_CHARS = 4096;
export const MAX_REGEX_INSTRUCTIONS = 10_000;
export const MAX_REGEX_WORK = 1 << 18;

/**
 * Milliseconds one `find`/`print ... where` may spend matching `~` over the items of its menu. The simulator
 * tests the items in one go (the condition is a synchronous predicate), so the script cannot take a turn of
 * the event loop between them: this bounds the command as MAX_REGEX_WORK bounds one match, far above what a
 * large table with short values takes (docs/reliability.md).
 */
export const MAX_WHERE_REGEX_MS = 250;
