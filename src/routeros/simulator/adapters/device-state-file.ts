/**
 * The state file of a simulated device run as its own process (`routerjobs router simulate --state-file`): the
 * device keeps its configuration as a router keeps it on flash, so that a `kill -9` loses nothing an API client
 * has seen. Changes are grouped, not written one by one: `changed()` schedules one write `flushDelayMs` later
 * (a script of 1,000 commands writes a handful of times, not 1,000), and `flush()` writes at once what is
 * pending; the API front end calls it before every answer, so what a client read is on disk.
 *
 * Every write is atomic: a temporary file beside the state file, fsynced, renamed over it, the folder fsynced.
 * A crash leaves the old state or the new one, never half of one.
 */
import { open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";

export interface DeviceStateFileOptions {
  /** How long a change waits for more before they are written together. @default 50 */
  readonly flushDelayMs?: number;
  /** Where a write that failed outside any caller is reported. @default stderr */
  readonly onError?: (error: Error) => void;
}

export class DeviceStateFile {
  /** Completed writes: how often the file was replaced. */
  writes = 0;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly flushDelayMs: number;
  private readonly onError: (error: Error) => void;

  constructor(
    readonly file: string,
    private readonly state: () => unknown,
    options: DeviceStateFileOptions = {},
  ) {
    this.flushDelayMs = options.flushDelayMs ?? 50;
    this.onError =
      options.onError ??
      ((error) => process.stderr.write(`routerjobs: state file ${file} not written: ${error.message}\n`));
  }

  /** Something of the device changed: it is written within `flushDelayMs`. */
  changed(): void {
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush().catch(this.onError);
    }, this.flushDelayMs);
  }

  /** Writes what changed, if anything; resolves once it is on disk. Writes never overlap. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const next = this.writing.then(
      () => this.writeIfDirty(),
      () => this.writeIfDirty(),
    );
    this.writing = next.catch(() => {});
    return next;
  }

  private async writeIfDirty(): Promise<void> {
    if (!this.dirty) return;
    // Taken before the snapshot: a change made while the file is written marks it dirty again.
    this.dirty = false;
    try {
      await writeDurably(this.file, `${JSON.stringify(this.state())}\n`);
      this.writes++;
    } catch (error) {
      this.dirty = true;
      throw error;
    }
  }
}

/** Write to a temporary file, fsync it, rename it over `file`, fsync the folder. */
export async function writeDurably(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const handle = await open(tmp, "w", 0o600);
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  const folder = await open(dirname(file), "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
