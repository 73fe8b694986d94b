/**
 * The keys of an interactive console, read from the bytes a terminal sends: printable characters build the
 * line (echoed when the client asked for a terminal, as a pty leaves echo to the server), Backspace takes one
 * back, Enter (CR, LF or CR LF) ends it, Ctrl-C drops it, Ctrl-D on an empty line logs out. Escape sequences
 * (arrows, function keys) are skipped: there is no history and no completion.
 */

export type LineEvent =
  | { readonly kind: "line"; readonly text: string }
  | { readonly kind: "cancel" }
  | { readonly kind: "logout" };

/** What RouterOS lets one console line hold before it refuses more input. */
export const MAX_LINE_CHARS = 65_536;

export class LineReader {
  private line = "";
  private lastWasCr = false;
  private escape: "none" | "start" | "sequence" = "none";

  constructor(private readonly echo: (text: string) => void) {}

  /** Feeds received text; returns the lines (and keys) it completed, in order. */
  feed(text: string): LineEvent[] {
    const events: LineEvent[] = [];
    for (const char of text) {
      const afterCr = this.lastWasCr;
      this.lastWasCr = false;
      if (this.escape !== "none") {
        // ESC [ ... final byte (CSI), or ESC and one character.
        if (this.escape === "start" && (char === "[" || char === "O")) this.escape = "sequence";
        else if (this.escape === "start" || /[@-~]/.test(char)) this.escape = "none";
        continue;
      }
      if (char === "\x1b") {
        this.escape = "start";
      } else if (char === "\r" || char === "\n") {
        if (char === "\n" && afterCr) continue;
        this.lastWasCr = char === "\r";
        this.echo("\r\n");
        events.push({ kind: "line", text: this.line });
        this.line = "";
      } else if (char === "\x7f" || char === "\b") {
        if (this.line.length > 0) {
          this.line = [...this.line].slice(0, -1).join("");
          this.echo("\b \b");
        }
      } else if (char === "\x03") {
        this.line = "";
        this.echo("\r\n");
        events.push({ kind: "cancel" });
      } else if (char === "\x04") {
        if (this.line === "") events.push({ kind: "logout" });
      } else if (char === "\t") {
        this.addChar(" ");
      } else if (char >= " ") {
        this.addChar(char);
      }
    }
    return events;
  }

  private addChar(char: string): void {
    if (this.line.length >= MAX_LINE_CHARS) return;
    this.line += char;
    this.echo(char);
  }
}
