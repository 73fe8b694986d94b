/**
 * Terraform's diagnostics for the provisioners it stopped (`Error: execution halted`, or `Error: local-exec
 * provisioner error` with `signal: killed` when it killed one): under -no-color the summary line, a blank line,
 * the indented `with <address>,`/`on ...` lines, then a paragraph of detail up to a blank line. Each resource
 * gets one closing line: its apply's own (`<address> (local-exec): routerjobs: interrupted; ...`), or deploy's in
 * place of Terraform's block when Terraform killed the apply before it could say it. Terraform forwards a
 * provisioner's output from a pipe of its own, so the apply's line can also reach deploy after the block: then
 * deploy has said it already and the apply's line is dropped.
 */
export class HaltedBlocks {
  #state: "out" | "body" | "detail" = "out";
  /** Resources whose closing line was written: by their apply, or by deploy for them. */
  readonly #closed = new Set<string>();
  /** Resources whose closing line deploy wrote in place of their apply's. */
  readonly #written = new Set<string>();

  constructor(private readonly write: (line: string) => void) {}

  /** Whether `line` is to be left out (a part of such a block, or an apply's line deploy said already). */
  drops(line: string): boolean {
    const applySaid = /^(\S+) \(local-exec\): routerjobs: interrupted/.exec(line)?.[1];
    if (applySaid !== undefined) {
      if (this.#written.has(applySaid)) return true;
      this.#closed.add(applySaid);
      return false;
    }
    if (/^Error: (execution halted|local-exec provisioner error)$/.test(line)) {
      this.#state = "body";
      return true;
    }
    if (this.#state === "body") {
      const address = /^ {2}with (\S+),$/.exec(line)?.[1];
      if (address !== undefined && !this.#closed.has(address)) {
        this.#closed.add(address);
        this.#written.add(address);
        this.write(`${address}: interrupted; the next deploy finishes its change`);
      }
      if (line.trim() !== "" && !/^\s/.test(line)) this.#state = "detail";
      return true;
    }
    if (this.#state === "detail") {
      if (line.trim() === "") this.#state = "out";
      return true;
    }
    return false;
  }
}
