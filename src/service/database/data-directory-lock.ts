import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { EnvironmentError, RouterjobsError } from "../../errors.js";
import { tryHoldLock } from "../../platform/fs/file-lock.js";
import { isProcessAlive } from "../../platform/fs/process-alive.js";

/**
 * A lock its holder stopped refreshing for this long is taken over: the holder died without releasing it. The
 * holder refreshes it every half of this, so only an event loop stalled this long could lose it.
 */
const STALE_MS = 10_000;
const RETRY_MS = 250;

/** Directories this process holds: their pid file names this process, which must not pass for a dead holder. */
const held = new Set<string>();

/**
 * PGlite serves one process per data directory: a second one would corrupt it. The lock is `<dir>.lock` (the
 * project's file lock, refreshed while held; an older routerjobs's lock directory counts as held too) and
 * `<dir>.lock.pid` names its holder for the error message.
 * A live holder's pid fails the open at once; after a crash the lock stays fresh for up to STALE_MS, so an
 * open waits that long before taking it over. Resolves to the release function.
 */
export async function lockDataDirectory(
  dir: string,
  onLost?: (error: Error) => void,
): Promise<() => Promise<void>> {
  const path = resolve(dir);
  const pidFile = `${path}.lock.pid`;
  if (held.has(path)) throw inUse(path, process.pid);
  await mkdir(dirname(path), { recursive: true });
  const deadline = Date.now() + STALE_MS + 1500;
  let release: () => void;
  for (;;) {
    // Another process may hold the directory now: the owner (the database) stops writing at once and tells its
    // user, who stops serving.
    const taken = tryHoldLock(path, STALE_MS, (error) => {
      const lost = new DataDirectoryLostError(
        `the lock of data directory ${path} was lost (${error.message}): another process may be using it, so this one stops writing to it`,
      );
      if (onLost) onLost(lost);
      else process.emitWarning(lost.message);
    });
    if (taken) {
      release = taken;
      break;
    }
    const owner = await readPid(pidFile);
    // Our own pid in the file is a previous holder's (a restarted container reuses pids), never a live one. A
    // dead holder's pid taken by an unrelated process within STALE_MS fails the open too; the message names it.
    const running = owner !== undefined && owner !== process.pid && isProcessAlive(owner);
    if (running || Date.now() > deadline) throw inUse(path, running ? owner : undefined);
    await sleep(RETRY_MS);
  }
  held.add(path);
  await writeFile(pidFile, `${process.pid}\n`);
  return async () => {
    held.delete(path);
    await rm(pidFile, { force: true });
    release();
  };
}

/** This process no longer holds its data directory: nothing more may be written to it. */
export class DataDirectoryLostError extends RouterjobsError {
  override readonly name = "DataDirectoryLostError";
  override readonly code = "RJ_ERR_ENVIRONMENT";
}

/** What to tell an operator whose service or receiver stopped because its database was lost. */
export function restartAdvice(lost: Error): string {
  return lost instanceof DataDirectoryLostError ? "restart it once the other process is gone" : "restart it";
}

function inUse(path: string, pid: number | undefined): EnvironmentError {
  return new EnvironmentError(
    `data directory ${path} is in use by another routerjobs process${pid === undefined ? "" : ` (pid ${pid})`}`,
  );
}

async function readPid(file: string): Promise<number | undefined> {
  const text = await readFile(file, "utf8").catch(() => "");
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}
