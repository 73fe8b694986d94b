import { rename, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import lockfile from "proper-lockfile";

/** A lock older than this is taken over: its holder died. Holders keep it only for a read and a write. */
export const LOCK_STALE_MS = 5_000;

/**
 * Holds the cross-process lock of `file` while `fn` runs. `onTimeout` builds the error thrown when the lock
 * is not free before `deadline` (epoch ms). The lock is a sibling directory (`file.lock`), as proper-lockfile
 * makes it, so `file` itself need not exist yet.
 */
export async function withFileLock<T>(
  file: string,
  deadline: number,
  onTimeout: () => Error,
  fn: () => Promise<T>,
  onCompromised?: (error: Error) => void,
): Promise<T> {
  let unlock: () => Promise<void>;
  for (;;) {
    try {
      unlock = await lockfile.lock(file, {
        realpath: false,
        stale: LOCK_STALE_MS,
        retries: 0,
        onCompromised: onCompromised ?? (() => {}),
      });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
      if (Date.now() > deadline) throw onTimeout();
      await sleep(1 + Math.random() * 4);
    }
  }
  try {
    return await fn();
  } finally {
    await unlock();
  }
}

/** Readers never see a torn file: write a sibling, then rename over (atomic on one file system). */
export async function writeFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode });
  await rename(tmp, file);
}
