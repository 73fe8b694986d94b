/**
 * Continued lines. `export` wraps long lines as `network=\` + new line + four spaces + `192.168.88.0`: a
 * backslash at the end of a line, the line end and the next line's leading blanks stand for nothing at all,
 * in a word, between words and inside quotes alike (`"abc\` + `    def"` is `abcdef`). A blank written before
 * the backslash still separates words. Removing the joins before lexing keeps every other rule of the lexer
 * unaware of them; `joins` maps positions in the joined text back to the lines and columns of the source.
 */

/** From offset `at` of the joined text on, characters come from `line`/`column` of the source (1-based). */
export interface LineJoin {
  readonly at: number;
  readonly line: number;
  readonly column: number;
}

export interface JoinedSource {
  readonly text: string;
  readonly joins: readonly LineJoin[];
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

/**
 * Removes every backslash-newline and the blanks after it. An escaped backslash (`\\`) does not continue the
 * line: the scan steps over each escape pair. Sources without a backslash are returned as they are.
 */
export function joinContinuedLines(source: string): JoinedSource {
  let backslash = source.indexOf("\\");
  if (backslash === -1) return { text: source, joins: [] };
  const joins: LineJoin[] = [];
  const pieces: string[] = [];
  let copied = 0;
  let joinedLength = 0;
  // Line bookkeeping for the positions of the joins only; new lines are counted lazily up to each join.
  let line = 1;
  let lineStart = 0;
  let counted = 0;
  const countLines = (to: number) => {
    for (let i = counted; i < to; i++) {
      const code = source.charCodeAt(i);
      if (code === 10 || (code === 13 && source.charCodeAt(i + 1) !== 10)) {
        line++;
        lineStart = i + 1;
      }
    }
    counted = to;
  };
  while (backslash !== -1) {
    const after = source.charCodeAt(backslash + 1);
    if (after !== 10 && after !== 13) {
      // An escape pair (`\\`, `\"`, `\n`...): its second character never starts a join.
      backslash = source.indexOf("\\", backslash + 2);
      continue;
    }
    let resume = backslash + 1 + (after === 13 && source.charCodeAt(backslash + 2) === 10 ? 2 : 1);
    countLines(resume);
    while (resume < source.length && isBlank(source.charCodeAt(resume))) resume++;
    pieces.push(source.slice(copied, backslash));
    joinedLength += backslash - copied;
    joins.push({ at: joinedLength, line, column: resume - lineStart + 1 });
    copied = resume;
    backslash = source.indexOf("\\", resume);
  }
  pieces.push(source.slice(copied));
  return { text: pieces.join(""), joins };
}
