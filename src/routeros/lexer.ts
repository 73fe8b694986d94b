/**
 * The RouterOS lexer. Which characters end a word depends on where the parser stands (a MAC address is one
 * word in `mac-address=00:11:22:33:44:55`, but `$a-1` is three tokens inside `( )`), so the parser asks for
 * the next token in a mode:
 * - `command`: words run until blanks or `[ ] { } ( ) ; = " $`; `#` at the start of a command is a comment.
 * - `expression`: inside `( )` and after `where`: operators, words, strings, variables.
 * - `string`: after an opening `"`: text chunks, `$var`, `$[`, `$(` and the closing `"`.
 * Backslash-newline joins lines everywhere. Positions are 1-based (line, column).
 */

import { RouterOsError } from "./errors.js";
import { decodeEscape } from "./escapes.js";

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
const OPERATORS = ["!=", "<=", ">=", "&&", "||", "=", "<", ">", "~", "!", "+", "-", "*", "/", ".", ",", "%"];

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
  private pos = 0;
  private line = 1;
  private column = 1;
  // The last peeked token and the state after it, kept in plain fields: peeking is the hot path.
  private cached: Token | undefined;
  private cachedMode: LexMode = "command";
  private cachedComments = false;
  private cachedPos = 0;
  private cachedLine = 1;
  private cachedColumn = 1;

  constructor(readonly source: string) {}

  /** The next token without consuming it. `comments` skips a `#` comment (the parser is at a command start). */
  peek(mode: LexMode, comments = false): Token {
    if (this.cached && this.cachedMode === mode && this.cachedComments === comments) return this.cached;
    const { pos, line, column } = this;
    const token = this.scan(mode, comments);
    this.cached = token;
    this.cachedMode = mode;
    this.cachedComments = comments;
    this.cachedPos = this.pos;
    this.cachedLine = this.line;
    this.cachedColumn = this.column;
    this.pos = pos;
    this.line = line;
    this.column = column;
    return token;
  }

  next(mode: LexMode, comments = false): Token {
    const token = this.peek(mode, comments);
    this.pos = this.cachedPos;
    this.line = this.cachedLine;
    this.column = this.cachedColumn;
    this.cached = undefined;
    return token;
  }

  private error(text: string, line = this.line, column = this.column): RouterOsError {
    return new RouterOsError(text, line, column);
  }

  private advance(count: number): void {
    this.pos += count;
    this.column += count;
  }

  private newline(): void {
    // CR LF, LF and a lone CR each end one physical line.
    if (this.source.charCodeAt(this.pos) === 13 && this.source.charCodeAt(this.pos + 1) === 10) this.pos++;
    this.pos++;
    this.line++;
    this.column = 1;
  }

  /** Skips blanks and backslash-newline joins; returns whether anything was skipped. */
  private skipBlanks(): boolean {
    const start = this.pos;
    const src = this.source;
    while (this.pos < src.length) {
      const code = src.charCodeAt(this.pos);
      if (isBlank(code)) this.advance(1);
      else if (code === 92 && isNewline(src.charCodeAt(this.pos + 1))) {
        this.pos++;
        this.newline();
      } else break;
    }
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
      while (this.pos < src.length && !isNewline(src.charCodeAt(this.pos))) this.advance(1);
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
    if (isNameChar(code) || code === 42) {
      const start = this.pos;
      this.advance(1);
      while (this.pos < src.length && isExprWordChar(src.charCodeAt(this.pos))) this.advance(1);
      return this.token("word", src.slice(start, this.pos), line, column, spaced);
    }
    for (const op of OPERATORS) {
      if (src.startsWith(op, this.pos)) {
        this.advance(op.length);
        return this.token("op", op, line, column, spaced);
      }
    }
    throw this.error("syntax error");
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
        this.advance(1);
        continue;
      }
      // A backslash-newline ends the word (it does not continue tokens other than strings).
      if (isNewline(src.charCodeAt(this.pos + 1))) break;
      const decoded = decodeEscape(src, this.pos + 1);
      if (decoded === undefined) throw this.error("syntax error");
      text += src.slice(chunk, this.pos) + decoded.text;
      this.advance(1 + decoded.length);
      chunk = this.pos;
      escaped = true;
    }
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
    while (this.pos < src.length && isNameChar(src.charCodeAt(this.pos))) this.advance(1);
    if (this.pos === start) throw this.error("syntax error", line, column);
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
    let chunk = this.pos;
    while (this.pos < src.length) {
      const c = src.charCodeAt(this.pos);
      if (c === 34 || c === 36) break;
      if (c === 92) {
        text += src.slice(chunk, this.pos);
        if (isNewline(src.charCodeAt(this.pos + 1))) {
          this.pos++;
          this.newline();
        } else {
          const decoded = decodeEscape(src, this.pos + 1);
          if (decoded === undefined) throw this.error("syntax error");
          text += decoded.text;
          this.advance(1 + decoded.length);
        }
        chunk = this.pos;
      } else if (isNewline(c)) {
        text +=
          src.slice(chunk, this.pos) +
          (c === 13 && src.charCodeAt(this.pos + 1) === 10 ? "\r\n" : src[this.pos]);
        this.newline();
        chunk = this.pos;
      } else this.advance(1);
    }
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
