/**
 * The one matcher of the `~` operator: `:put ($a ~ "^ether")`, `find where comment~"uplink"`. RouterOS matches
 * POSIX extended regular expressions, and scripts come from tenants. JavaScript's RegExp backtracks: `(a+)+b`
 * against a few dozen characters holds the event loop for a time that doubles with each character, out of
 * reach of every timeout (docs/reliability.md has the figure). RE2 (re2js, a
 * port of Go's regexp) never backtracks: a match takes time linear in the subject times the pattern's compiled
 * program, so `compileRegex` bounds the program and `test` the product before the match starts (limits.ts).
 *
 * RE2's syntax covers POSIX ERE: anchors, `.`, bracket expressions with `[:digit:]`-style classes, `|`, groups,
 * `* + ?` and `{m,n}` (m, n <= 1000). `.` matches a newline as in POSIX (RE2's `s` flag). What differs:
 * - refused with an error that names it: backreferences (`\1`; POSIX has them in basic expressions, glibc in
 *   extended ones too), which no linear-time matcher can take; JavaScript's lookahead and lookbehind (`(?=`,
 *   `(?!`, `(?<=`, `(?<!`), which POSIX does not have but the JavaScript matcher took; POSIX equivalence classes
 *   and collating elements (`[[=a=]]`, `[[.a.]]`), which RE2 would read as plain characters;
 * - as in RE2 and JavaScript, not POSIX: `\` escapes inside brackets (`[\]]`); Perl classes `\d \w \s \b` work.
 */
import { RE2JS, RE2JSException, RE2JSSyntaxException } from "re2js";
import { RouterOsError } from "../errors.js";
import { MAX_REGEX_CHARS, MAX_REGEX_INSTRUCTIONS, MAX_REGEX_WORK } from "../limits.js";

export interface Regex {
  readonly pattern: string;
  /** Whether the pattern matches somewhere in `subject`; throws `RouterOsError` past MAX_REGEX_WORK. */
  test(subject: string): boolean;
}

/**
 * Compiled patterns kept for the next match, since a `:foreach` or a `where` reuses its pattern and compiling
 * costs far more than matching a short subject (docs/reliability.md): the most recently used, within a count
 * and a total of instructions, so that the cache holds a few MiB at most.
 */
const CACHE_ENTRIES = 64;
const CACHE_INSTRUCTIONS = 1 << 16;
/**
 * Bytes of DFA states (as re2js counts them) a cached pattern keeps between matches. RE2 builds its DFA lazily,
 * up to 8 MiB a pattern; a pattern built to need many states would otherwise keep them all while it is cached.
 */
const KEPT_DFA_BYTES = 128 << 10;

const cache = new Map<string, CompiledRegex>();
let cachedInstructions = 0;

class CompiledRegex implements Regex {
  readonly instructions: number;

  constructor(
    readonly pattern: string,
    private readonly re: RE2JS,
  ) {
    this.instructions = re.programSize();
  }

  test(subject: string): boolean {
    const work = (subject.length + 1) * this.instructions;
    if (work > MAX_REGEX_WORK) {
      throw new RouterOsError(
        `regular expression ${shown(this.pattern)} (${this.instructions} instructions) against ${subject.length} characters: more than ${MAX_REGEX_WORK} steps of matching, the limit of this router`,
      );
    }
    const matched = this.re.test(subject);
    const dfa = this.re.re2Input.lazyDFA;
    if (dfa && dfa.stateBudget - dfa.memBudget > KEPT_DFA_BYTES) dfa.clearCache();
    return matched;
  }
}

/** The pattern compiled, from the cache when it is there; throws `RouterOsError` for a pattern RE2 refuses. */
export function compileRegex(pattern: string): Regex {
  const cached = cache.get(pattern);
  if (cached) {
    cache.delete(pattern);
    cache.set(pattern, cached);
    return cached;
  }
  const compiled = new CompiledRegex(pattern, compile(pattern));
  if (compiled.instructions > MAX_REGEX_INSTRUCTIONS) throw tooLarge(pattern, compiled.instructions);
  cache.set(pattern, compiled);
  cachedInstructions += compiled.instructions;
  for (const [key, entry] of cache) {
    if (cache.size <= CACHE_ENTRIES && cachedInstructions <= CACHE_INSTRUCTIONS) break;
    cache.delete(key);
    cachedInstructions -= entry.instructions;
  }
  return compiled;
}

/** `subject ~ pattern`. */
export function matchesRegex(subject: string, pattern: string): boolean {
  return compileRegex(pattern).test(subject);
}

function compile(pattern: string): RE2JS {
  if (pattern.length > MAX_REGEX_CHARS) {
    throw new RouterOsError(
      `regular expression of ${pattern.length} characters, more than ${MAX_REGEX_CHARS}, the limit of this router`,
    );
  }
  // Compiling costs in proportion to the instructions, and a short pattern can expand to many (`[a-z]{1000}` is
  // 11 characters and 1,002 instructions): the size is estimated before compiling, and checked after.
  const estimate = estimatedInstructions(pattern);
  if (estimate > MAX_REGEX_INSTRUCTIONS) throw tooLarge(pattern);
  const bracket = posixOnlyBracket(pattern);
  if (bracket) {
    throw invalid(
      pattern,
      `equivalence classes and collating elements (${bracket}) are not supported, list the characters instead`,
    );
  }
  try {
    return RE2JS.compile(pattern, RE2JS.DOTALL);
  } catch (error) {
    if (error instanceof RE2JSSyntaxException) throw invalid(pattern, reason(error, pattern));
    if (error instanceof RE2JSException) throw invalid(pattern, error.message);
    throw error;
  }
}

function reason(error: RE2JSSyntaxException, pattern: string): string {
  // RE2JS puts the `s` flag in front of the pattern it parses.
  const part = (error.input ?? "").replace(/^\(\?s\)/, "");
  if (/^\\[1-9]/.test(part)) {
    return `backreferences (${part.slice(0, 2)}) are not supported: patterns are matched in linear time`;
  }
  if (/^\(\?<?[=!]/.test(part)) {
    return "lookahead and lookbehind ((?= (?! (?<= (?<!) are not supported: patterns are matched in linear time";
  }
  return part === "" || part === pattern ? error.error : `${error.error} in ${shown(part)}`;
}

/** `[=a=]` or `[.a.]` inside a bracket expression, if the pattern has one. */
function posixOnlyBracket(pattern: string): string | undefined {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "[") {
      const bracket = scanBracket(pattern, i);
      if (bracket.posixOnly) return bracket.posixOnly;
      i = bracket.end;
    }
  }
  return undefined;
}

const BOUND = /\{(\d+)(?:(,)(\d*))?\}/y;

/**
 * About the instructions RE2 compiles the pattern to, counted as its parser sizes an expression: a character
 * or a class 1, `* + ?` 1 or 2 more, a group 2 more, `{m,n}` n times its atom and n - m more. Syntax RE2 refuses
 * is counted somehow: RE2's own parse reports it.
 */
export function estimatedInstructions(pattern: string): number {
  const frames = [{ size: 0, alternatives: 0, atom: 0 }];
  let frame = frames[0] as { size: number; alternatives: number; atom: number };
  const atom = (size: number) => {
    frame.size += size;
    frame.atom = size;
  };
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") {
      // `\x{263a}`, `\p{Greek}`: the braces belong to the escape.
      i = "xpP".includes(pattern[i + 1] ?? "") && pattern[i + 2] === "{" ? pattern.indexOf("}", i) : i + 1;
      if (i < 0) break;
      atom(1);
    } else if (char === "[") {
      i = scanBracket(pattern, i).end;
      atom(1);
    } else if (char === "(") {
      frame = { size: 0, alternatives: 0, atom: 0 };
      frames.push(frame);
    } else if (char === ")" && frames.length > 1) {
      const group = frames.pop() as typeof frame;
      frame = frames[frames.length - 1] as typeof frame;
      atom(group.alternatives + Math.max(group.size, 1) + 2);
    } else if (char === "|") {
      // An empty branch still takes an instruction (it matches the empty string).
      frame.alternatives += Math.max(frame.size, 1) + 1;
      frame.size = 0;
      frame.atom = 0;
    } else if (char === "*" || char === "+" || char === "?") {
      frame.size += 2;
      frame.atom += 2;
    } else if (char === "{") {
      BOUND.lastIndex = i;
      const bound = BOUND.exec(pattern);
      if (!bound) {
        atom(1);
        continue;
      }
      const min = Number(bound[1]);
      const max = bound[2] === undefined ? min : bound[3] === "" ? min + 1 : Number(bound[3]);
      const repeated = frame.atom * Math.max(max, 1) + Math.max(max - min, 0);
      frame.size += repeated - frame.atom;
      frame.atom = repeated;
      i = BOUND.lastIndex - 1;
    } else atom(1);
  }
  let total = 2;
  for (const open of frames) total += open.alternatives + Math.max(open.size, 1);
  return total;
}

/**
 * The bracket expression opening at `start`, read as RE2 reads it: `]` first is a member, `\` escapes,
 * `[:name:]` is a class. Returns where it ends (its `]`) and the first `[=a=]` or `[.a.]` in it.
 */
function scanBracket(pattern: string, start: number): { end: number; posixOnly?: string } {
  let j = start + 1;
  if (pattern[j] === "^") j++;
  if (pattern[j] === "]") j++;
  for (; j < pattern.length && pattern[j] !== "]"; j++) {
    if (pattern[j] === "\\") j++;
    else if (pattern[j] === "[" && ":=.".includes(pattern[j + 1] ?? "]")) {
      const delimiter = pattern[j + 1] as string;
      const end = pattern.indexOf(`${delimiter}]`, j + 2);
      if (end < 0) continue;
      if (delimiter !== ":") return { end, posixOnly: pattern.slice(j, end + 2) };
      j = end + 1;
    }
  }
  return { end: j };
}

function tooLarge(pattern: string, instructions?: number): RouterOsError {
  const size =
    instructions === undefined
      ? `more than ${MAX_REGEX_INSTRUCTIONS} instructions`
      : `${instructions} instructions, more than ${MAX_REGEX_INSTRUCTIONS}`;
  return invalid(pattern, `it compiles to ${size}, the limit of this router`);
}

function invalid(pattern: string, why: string): RouterOsError {
  return new RouterOsError(`invalid regular expression ${shown(pattern)}: ${why}`);
}

/** The pattern as an error names it: quoted, and cut when long. */
function shown(pattern: string): string {
  return JSON.stringify(pattern.length > 64 ? `${pattern.slice(0, 60)}...` : pattern);
}
