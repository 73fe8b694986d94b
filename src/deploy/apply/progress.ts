import type { JobStatus } from "../../contract/job.js";
import { type Wave, waveLabel } from "../../contract/wave-check.js";

/**
 * One status line per state change, for Terraform to show live (`module.x (local-exec): ...`). Times are
 * relative to the start of this apply so that a slow router stands out. In a rollout every line names the
 * wave (`wave 2/3: job #4 running`), so the interleaved lines of parallel routers read as waves.
 */
export class Progress {
  readonly #started = performance.now();
  #last: string | undefined;

  readonly #prefix: string;

  constructor(
    private readonly resource: string,
    private readonly write: (line: string) => void,
    wave?: Wave,
  ) {
    this.#prefix = wave === undefined ? "" : `${waveLabel(wave)}: `;
  }

  /** Prints a line unless the status is the one printed last. */
  status(
    job: { readonly id: string; readonly status: JobStatus; readonly seq_id?: number | undefined },
    note = "",
  ): void {
    const key = `${job.id}:${job.status}`;
    if (key === this.#last) return;
    this.#last = key;
    const seq = job.seq_id === undefined ? "" : ` #${job.seq_id}`;
    this.line(`job${seq} ${job.status}${note ? ` ${note}` : ""}`);
  }

  line(text: string): void {
    const seconds = ((performance.now() - this.#started) / 1000).toFixed(1);
    this.write(`routerjobs: ${this.resource}: ${this.#prefix}${text} (${seconds}s)`);
  }
}
