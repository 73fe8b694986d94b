/**
 * The RouterOS lexer. Which characters end a word depends on where the parser stands (a MAC address is one
 * word in `mac-address=00:11:22:33:44:55`, but `$a-1` is three tokens inside `( )`), so the parser asks for
 * the next token in a mode:
 * - `command`: words run until blanks or `[ ] { } ( ) ; = " $`; `#` at the start of a command is a comment.
 * - `expression`: inside `( )` and after `where`: operators, words, strings, variables.
 * - `string`: after an opening `"`: text chunks, `$var`, `$[`, `$(` and the closing `"`.
 * Backslash-newline (and the next line's indentation) is removed before lexing (`line-joins.ts`). Positions are
 * 1-based (line, column) in the source as written.
 */

import { RouterOsError } from "../errors.js";
import { MAX_TOKEN_CHARS } from "../limits.js";
import { decodeEscape } from "./escapes.js";
import { joinContinuedLines, type LineJoin } from "./line-joins.js";

export type LexMode = "command" | "expression" | "string";

export type TokenKind =
  | "word"
  | "var"
  | "quote"
  | "text"
  | "op"
  | "subst"
  | "expr-subst"
  | "["
  | "]"
  | "{"
  | "}"
  | "("
  | ")"
  | ";"
  | "="
  | "eol"
  | "eof";

export interface Token {
  readonly kind: TokenKind;
  /** Decoded text: the word, variable name, string chunk or operator. */
  readonly text: string;
  readonly line: number;
  readonly column: number;
  /** Blank space (or a joined line) came right before: adjacent tokens form one argument. */
  readonly spaced: boolean;
  /** Offset just past the token in the source (to see what is glued to it). */
  readonly end: number;
  /** A word written with `\` escapes: never a keyword, flag or menu name. */
  readonly escaped: boolean;
}

const PUNCT = new Set<TokenKind>(["[", "]", "{", "}", "(", ")", ";"]);
const OPERATORS = [
  "->",
  "<<",
  ">>",
  "!=",
  "<=",
  ">=",
  "&&",
  "||",
  "&",
  "|",
  "^",
  "=",
  "<",
  ">",
  "~",
  "!",
  "+",
  "-",
  "*",
  "/",
  ".",
  ",",
  "%",
];
/** Looked up by the next two characters, then by the next one: the longest operator wins. */
const TWO_CHAR_OPERATORS: ReadonlySet<string> = new Set(OPERATORS.filter((op) => op.length === 2));
const ONE_CHAR_OPERATORS: ReadonlySet<string> = new Set(OPERATORS.filter((op) => op.length === 1));

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}
function isNewline(code: number): boolean {
  return code === 10 || code === 13;
}
/** Ends a word in command mode: blanks, new lines and `[ ] { } ( ) ; = " $`. */
function endsCommandWord(code: number): boolean {
  return (
    isBlank(code) ||
    isNewline(code) ||
    code === 91 ||
    code === 93 ||
    code === 123 ||
    code === 125 ||
    code === 40 ||
    code === 41 ||
    code === 59 ||
    code === 61 ||
    code === 34 ||
    code === 36
  );
}
function isNameChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
  );
}
function isExprWordChar(code: number): boolean {
  return isNameChar(code) || code === 46 || code === 58 || code === 47 || code === 45;
}

export class Lexer {
  /** The text being read: the source with continued lines joined. Token `end` offsets index into it. */
  readonly source: string;
  private readonly joins: readonly LineJoin[];
  private pos = 0;
  private line = 1;
  private column = 1;
  /** Index of the next line join ahead of `pos`, and where it starts (Infinity when none is left). */
  private join = 0;
  private nextJoinAt = Number.POSITIVE_INFINITY;
  // The last peeked token and the state after it, kept in plain fields: peeking is the hot path.
  private cached: Token | undefined;
  private cachedMode: LexMode = "command";
  private cachedComments = false;
  private cachedPos = 0;
  private cachedLine = 1;
  private cachedColumn = 1;
  private cachedJoin = 0;

  constructor(source: string) {
    const joined = joinContinuedLines(source);
    this.source = joined.text;
    this.joins = joined.joins;
    this.nextJoinAt = this.joins[0]?.at ?? Number.POSITIVE_INFINITY;
  }

  /** The next token without consuming it. `comments` skips a `#` comment (the parser is at a command start). */
  peek(mode: LexMode, comments = false): Token {
    if (this.cached && this.cachedMode === mode && this.cachedComments === comments) return this.cached;
    const pos = this.pos;
    const line = this.line;
    const column = this.column;
    const join = this.join;
    const token = this.scan(mode, comments);
    this.cached = token;
    this.cachedMode = mode;
    this.cachedComments = comments;
    this.cachedPos = this.pos;
    this.cachedLine = this.line;
    this.cachedColumn = this.column;
    this.cachedJoin = this.join;
    this.restore(pos, line, column, join);
    return token;
  }

  next(mode: LexMode, comments = false): Token {
    const token = this.peek(mode, comments);
    this.restore(this.cachedPos, this.cachedLine, this.cachedColumn, this.cachedJoin);
    this.cached = undefined;
    return token;
  }

  private restore(pos: number, line: number, column: number, join: number): void {
    this.pos = pos;
    this.line = line;
    this.column = column;
    if (join !== this.join) {
      this.join = join;
      this.nextJoinAt = this.joins[join]?.at ?? Number.POSITIVE_INFINITY;
    }
  }

  /** After `pos` moved past the start of joined lines: takes the line and column they had in the source. */
  private crossJoins(): void {
    for (let join = this.joins[this.join]; join && join.at <= this.pos; join = this.joins[this.join]) {
      this.line = join.line;
      this.column = join.column + (this.pos - join.at);
      this.join++;
    }
    this.nextJoinAt = this.joins[this.join]?.at ?? Number.POSITIVE_INFINITY;
  }

  private tooLong(start: number, line: number, column: number): void {
    if (this.pos - start > MAX_TOKEN_CHARS)
      throw this.error(`string too long, at most ${MAX_TOKEN_CHARS} characters`, line, column);
  }

  private error(text: string, line = this.line, column = this.column): RouterOsError {
    return new RouterOsError(text, line, column);
  }

  private advance(count: number): void {
    this.pos += count;
    this.column += count;
    if (this.pos >= this.nextJoinAt) this.crossJoins();
  }

  private newline(): void {
    // CR LF, LF and a lone CR each end one physical line.
    if (this.source.charCodeAt(this.pos) === 13 && this.source.charCodeAt(this.pos + 1) === 10) this.pos++;
    this.pos++;
    this.line++;
    this.column = 1;
    if (this.pos >= this.nextJoinAt) this.crossJoins();
  }

  /** Skips blanks; returns whether any were skipped (a blank separates arguments, a line join does not). */
  private skipBlanks(): boolean {
    const start = this.pos;
    const src = this.source;
    let end = this.pos;
    while (end < src.length && isBlank(src.charCodeAt(end))) end++;
    if (end !== start) this.advance(end - start);
    return this.pos !== start;
  }

  private token(kind: TokenKind, text: string, line: number, column: number, spaced: boolean): Token {
    return { kind, text, line, column, spaced, end: this.pos, escaped: false };
  }

  private scan(mode: LexMode, comments: boolean): Token {
    if (mode === "string") return this.scanString();
    let spaced = this.skipBlanks();
    const src = this.source;
    if (comments && src.charCodeAt(this.pos) === 35) {
      let end = this.pos;
      while (end < src.length && !isNewline(src.charCodeAt(end))) end++;
      this.advance(end - this.pos);
      spaced = true;
    }
    const { line, column } = this;
    if (this.pos >= src.length) return this.token("eof", "", line, column, spaced);
    const code = src.charCodeAt(this.pos);
    const char = src[this.pos] as string;
    if (isNewline(code)) {
      this.newline();
      return this.token("eol", "\n", line, column, spaced);
    }
    if (PUNCT.has(char as TokenKind)) {
      this.advance(1);
      return this.token(char as TokenKind, char, line, column, spaced);
    }
    if (code === 34) {
      this.advance(1);
      return this.token("quote", '"', line, column, spaced);
    }
    if (code === 36) return this.scanVariable(spaced);
    if (mode === "command") {
      if (code === 61) {
        this.advance(1);
        return this.token("=", "=", line, column, spaced);
      }
      return this.scanCommandWord(spaced);
    }
    // `*1A` is an item id, unless the star follows a value (`10*60`, `$n*2`): then it multiplies.
    const before = this.pos > 0 ? src.charCodeAt(this.pos - 1) : 32;
    const multiplies = code === 42 && (isExprWordChar(before) || before === 41 || before === 93);
    const next = src.charCodeAt(this.pos + 1);
    // `.id` after a blank or `(` (`find where .id=$id`) is a property name, not the `.` that joins; `::1`,
    // `::ffff:0:0` are IPv6 addresses.
    const startsWord =
      (code === 46 && isNameChar(next) && (isBlank(before) || before === 40 || before === 33)) ||
      (code === 58 && next === 58);
    if (isNameChar(code) || (code === 42 && !multiplies) || startsWord) {
      const start = this.pos;
      let end = start + 1;
      // `*` belongs to item ids (`*1A`); after a number it multiplies (`(10*60)`).
      const numeric = code >= 48 && code <= 57;
      // `$a->0->1`: a `-` that starts `->` ends the word.
      while (
        end < src.length &&
        isExprWordChar(src.charCodeAt(end)) &&
        !(numeric && src.charCodeAt(end) === 42) &&
        !(src.charCodeAt(end) === 45 && src.charCodeAt(end + 1) === 62)
      )
        end++;
      this.advance(end - start);
      this.tooLong(start, line, column);
      return this.token("word", src.slice(start, this.pos), line, column, spaced);
    }
    const pair = src.slice(this.pos, this.pos + 2);
    const op = TWO_CHAR_OPERATORS.has(pair) ? pair : ONE_CHAR_OPERATORS.has(char) ? char : undefined;
    if (op === undefined) throw this.error("syntax error");
    this.advance(op.length);
    return this.token("op", op, line, column, spaced);
  }

  private scanCommandWord(spaced: boolean): Token {
    const { line, column } = this;
    const src = this.source;
    const start = this.pos;
    let text = "";
    let chunk = start;
    let escaped = false;
    while (this.pos < src.length) {
      const code = src.charCodeAt(this.pos);
      if (endsCommandWord(code)) break;
      if (code !== 92) {
        // Plain characters up to the next backslash or word end, in one step (the hot path of every word).
        let end = this.pos + 1;
        for (
          let c = src.charCodeAt(end);
          end < src.length && c !== 92 && !endsCommandWord(c);
          c = src.charCodeAt(end)
        )
          end++;
        this.advance(end - this.pos);
        continue;
      }
      const decoded = decodeEscape(src, this.pos + 1);
      if (decoded === undefined) throw this.error("syntax error");
      text += src.slice(chunk, this.pos) + decoded.text;
      this.advance(1 + decoded.length);
      chunk = this.pos;
      escaped = true;
    }
    this.tooLong(start, line, column);
    text += src.slice(chunk, this.pos);
    return { kind: "word", text, line, column, spaced, end: this.pos, escaped };
  }

  /** `$name` or `$"any name"`. */
  private scanVariable(spaced = false): Token {
    const { line, column } = this;
    const src = this.source;
    this.advance(1);
    if (src.charCodeAt(this.pos) === 34) {
      this.advance(1);
      let name = "";
      for (;;) {
        const t = this.scanString();
        if (t.kind === "quote") break;
        if (t.kind !== "text") throw this.error("syntax error", t.line, t.column);
        name += t.text;
      }
      return this.token("var", name, line, column, spaced);
    }
    const start = this.pos;
    let end = start;
    while (end < src.length && isNameChar(src.charCodeAt(end))) end++;
    this.advance(end - start);
    if (this.pos === start) throw this.error("syntax error", line, column);
    this.tooLong(start, line, column);
    return this.token("var", src.slice(start, this.pos), line, column, spaced);
  }

  /** Inside a string: a decoded text chunk, a variable, `$[`, `$(`, the closing quote, or eof. */
  private scanString(): Token {
    const { line, column } = this;
    const src = this.source;
    if (this.pos >= src.length) return this.token("eof", "", line, column, false);
    const code = src.charCodeAt(this.pos);
    if (code === 34) {
      this.advance(1);
      return this.token("quote", '"', line, column, false);
    }
    if (code === 36) {
      const after = src.charCodeAt(this.pos + 1);
      if (after === 91 || after === 40) {
        this.advance(2);
        return this.token(
          after === 91 ? "subst" : "expr-subst",
          after === 91 ? "$[" : "$(",
          line,
          column,
          false,
        );
      }
      return this.scanVariable();
    }
    let text = "";
    const start = this.pos;
    let chunk = start;
    while (this.pos < src.length) {
      const c = src.charCodeAt(this.pos);
      if (c === 34 || c === 36) break;
      if (c === 92) {
        text += src.slice(chunk, this.pos);
        const decoded = decodeEscape(src, this.pos + 1);
        if (decoded === undefined) throw this.error("syntax error");
        text += decoded.text;
        this.advance(1 + decoded.length);
        chunk = this.pos;
      } else if (isNewline(c)) {
        text +=
          src.slice(chunk, this.pos) +
          (c === 13 && src.charCodeAt(this.pos + 1) === 10 ? "\r\n" : src[this.pos]);
        this.newline();
        chunk = this.pos;
      } else {
        let end = this.pos + 1;
        for (
          let c2 = src.charCodeAt(end);
          end < src.length && c2 !== 34 && c2 !== 36 && c2 !== 92 && !isNewline(c2);
          c2 = src.charCodeAt(end)
        )
          end++;
        this.advance(end - this.pos);
      }
    }
    this.tooLong(start, line, column);
    text += src.slice(chunk, this.pos);
    return this.token("text", text, line, column, false);
  }
}

/**
 * All tokens of `source`, following strings and `$[`/`$(` substitutions the way the parser does: command mode
 * at the top, expression mode inside `( )`. For tests and tooling; the parser drives `Lexer` itself.
 */
export function tokenize(source: string): Token[] {
  const lexer = new Lexer(source);
  const tokens: Token[] = [];
  const modes: LexMode[] = ["command"];
  let atStart = true;
  for (;;) {
    const mode = modes[modes.length - 1] ?? "command";
    const token = lexer.next(mode, mode === "command" && atStart);
    tokens.push(token);
    if (token.kind === "eof") return tokens;
    atStart = token.kind === "eol" || token.kind === ";" || token.kind === "{";
    if (token.kind === "quote") {
      if (mode === "string") modes.pop();
      else modes.push("string");
    } else if (token.kind === "[" || token.kind === "subst" || token.kind === "{") {
      modes.push("command");
      atStart = true;
    } else if (token.kind === "(" || token.kind === "expr-subst") modes.push("expression");
    else if ((token.kind === "]" || token.kind === "}" || token.kind === ")") && modes.length > 1)
      modes.pop();
  }
}
