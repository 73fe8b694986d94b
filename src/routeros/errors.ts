import { RouterjobsError } from "../errors.js";

/**
 * A failure with RouterOS's own text. `line`/`column` are 1-based and set when the failure has a place in a
 * script; `toString()` then reads like the router: `bad command name adress (line 1 column 5)`.
 */
export class RouterOsError extends RouterjobsError {
  override readonly name = "RouterOsError";
  override readonly code = "RJ_ERR_ROUTEROS";
  constructor(
    /** The router's text without position, e.g. `failure: already have such address`. */
    readonly text: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line === undefined ? text : `${text} (line ${line} column ${column ?? 1})`);
  }

  /** The same failure placed at a position in a script (keeps an existing position). */
  at(line: number, column: number): RouterOsError {
    return this.line === undefined ? new RouterOsError(this.text, line, column) : this;
  }
}

/**
 * A script's failure with its line, as a job's `error` and a plan's line carry it: the router's text already
 * holds its position when RouterOS placed it (`(line 2 column 1)`), and then keeps it alone.
 */
export function withLine(text: string, line: number | undefined): string {
  if (line === undefined || /\(line \d+/.test(text)) return text;
  return `${text} (line ${line})`;
}
