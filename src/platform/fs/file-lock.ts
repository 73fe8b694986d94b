/**
 * Cross-process locks on a file. The lock is the sibling `file.lock`, created with O_EXCL (atomic: one creator
 * wins); a lock not touched for LOCK_STALE_MS belongs to a dead holder and is taken over; a holder of an
 * asynchronous lock touches it every half of that while it holds it. The rules are proper-lockfile's, which
 * made the lock a directory: a mkdir + rmdir costs many times a file's create + unlink, and an apply takes
 * its locks some ten times; loading proper-lockfile, graceful-fs and signal-exit cost each `routerjobs apply`
 * CPU too (figures: docs/performance.md). A lock directory that an older routerjobs made at the same path
 * still counts as held (our O_EXCL create fails on it, as its mkdir fails on our file), and is removed the
 * same way when stale.
 */
import { closeSync, openSync, rmdirSync, statSync, unlinkSync, utimesSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

/** A lock older than this is taken over: its holder died. Holders keep it only for a read and a write. */
export const LOCK_STALE_MS = 5_000;

export interface LockOptions {
  /** @default LOCK_STALE_MS */
  readonly staleMs?: number;
}

/** Locks this process holds, removed on exit as proper-lockfile did (a crash leaves them to the stale rule). */
const held = new Set<string>();
let exitHookInstalled = false;

/**
 * Takes the lock of `file` now, or returns undefined while another process holds it. Synchronous, for a
 * critical section that is synchronous too (the rate budget's read-modify-write): nothing refreshes it, so
 * the section must end well within the stale time. Returns the function that releases it.
 */
export function tryLockSync(file: string, options: LockOptions = {}): (() => void) | undefined {
  const lock = `${file}.lock`;
  const staleMs = options.staleMs ?? LOCK_STALE_MS;
  // A stat first: a failed create still takes the folder's write lock and slows the holder's unlink.
  const mtimeMs = lockMtimeMs(lock);
  if (mtimeMs !== undefined) {
    if (mtimeMs >= Date.now() - staleMs) return undefined;
    removeLock(lock);
  }
  try {
    closeSync(openSync(lock, "wx", 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
  hold(lock);
  return () => release(lock);
}

/**
 * Takes the lock of `file` now and holds it until released, touching it every half of `staleMs` so that others
 * do not take it as stale (a long-lived holder: a database's data directory). Returns undefined while another
 * process holds it. `onCompromised` hears when a touch fails or another process took the lock over.
 */
export function tryHoldLock(
  file: string,
  staleMs: number,
  onCompromised: (error: Error) => void,
): (() => void) | undefined {
  const unlock = tryLockSync(file, { staleMs });
  if (!unlock) return undefined;
  const lock = `${file}.lock`;
  // A lock taken over is another process's now: releasing it later must not remove theirs.
  const stopRefresh = refreshWhileHeld(lock, staleMs, (error) => {
    held.delete(lock);
    onCompromised(error);
  });
  return () => {
    stopRefresh();
    unlock();
  };
}

/**
 * Holds the cross-process lock of `file` while `fn` runs. `onTimeout` builds the error thrown when the lock
 * is not free before `deadline` (epoch ms). `file` itself need not exist. While held, the lock is touched
 * every half stale time; `onCompromised` hears when that fails or another process took the lock over.
 */
export async function withFileLock<T>(
  file: string,
  deadline: number,
  onTimeout: () => Error,
  fn: () => Promise<T>,
  onCompromised?: (error: Error) => void,
): Promise<T> {
  let unlock: (() => void) | undefined;
  for (;;) {
    unlock = tryLockSync(file);
    if (unlock) break;
    if (Date.now() > deadline) throw onTimeout();
    await sleep(1 + Math.random() * 4);
  }
  const stopRefresh = refreshWhileHeld(`${file}.lock`, LOCK_STALE_MS, onCompromised ?? (() => {}));
  try {
    return await fn();
  } finally {
    stopRefresh();
    unlock();
  }
}

/** Readers never see a torn file: write a sibling, then rename over (atomic on one file system). */
export async function writeFileAtomic(file: string, text: string, mode = 0o600): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode });
  await rename(tmp, file);
}

/** Touches the lock so that others do not take it as stale; reports when it was lost. */
function refreshWhileHeld(lock: string, staleMs: number, onCompromised: (error: Error) => void): () => void {
  let ours = lockMtimeMs(lock);
  const timer = setInterval(() => {
    try {
      if (lockMtimeMs(lock) !== ours) throw new Error(`the lock ${lock} was taken over by another process`);
      const now = new Date();
      utimesSync(lock, now, now);
      ours = lockMtimeMs(lock);
    } catch (error) {
      clearInterval(timer);
      onCompromised(Object.assign(error as Error, { code: "ECOMPROMISED" }));
    }
  }, staleMs / 2);
  // Never keeps the process alive: the lock is released in `finally` or on exit.
  timer.unref();
  return () => clearInterval(timer);
}

function lockMtimeMs(lock: string): number | undefined {
  try {
    return statSync(lock).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function removeLock(lock: string): void {
  try {
    unlinkSync(lock);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    // An older routerjobs's lock (proper-lockfile's directory).
    if (code !== "EISDIR" && code !== "EPERM") throw error;
    try {
      rmdirSync(lock);
    } catch (dirError) {
      if ((dirError as NodeJS.ErrnoException).code !== "ENOENT") throw dirError;
    }
  }
}

function hold(lock: string): void {
  held.add(lock);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const lock of held) {
      try {
        unlinkSync(lock);
      } catch {
        // already gone: nothing to release
      }
    }
  });
}

function release(lock: string): void {
  if (!held.delete(lock)) return;
  removeLock(lock);
}
