/**
 * A CommonJS bundle run with V8's code for it kept on disk: `routerjobs apply`'s body (apply-main.ts), which
 * Terraform starts once per declared script.
 *
 * Node's own compile cache (`module.enableCompileCache`, Node >= 22.1, which bin/routerjobs.js turns on for the
 * rest of the CLI) stores a module's code when the module is compiled, before it runs: it holds the top level
 * and little else, and every function an apply calls is still parsed and compiled on its first call. This one
 * asks V8 for the code after the run (`Script#createCachedData`), so it holds every function that run
 * compiled, and it works on Node 20, which has no compile cache at all. So it takes more off an apply's CPU
 * than Node's cache does (figures: docs/performance.md, bench/apply-process.bench.ts; docs/decisions.md).
 *
 * Where, and why it is safe to read back:
 * - The folder is `routerjobs-code-cache-<uid>` in `NODE_COMPILE_CACHE` when that is set (where the user
 *   keeps Node's cache), else in the system's temp folder; `NODE_DISABLE_COMPILE_CACHE=1` turns it off, as it
 *   does Node's. A cache is code that this process will run, so the folder is used only when it is a real
 *   folder (not a link) owned by this user and writable by nobody else; it is made with mode 0700.
 * - A file is named by the bundle's sha256 (given by the build), Node's version and the CPU: V8 checks its
 *   own version, its flags and the source's length, not the source itself, so a cache of another bundle of
 *   the same length would be taken. A file V8 rejects (flags changed, truncated) is written again.
 * - It is written once, after the first run that succeeded (a failed run may have compiled only an error's
 *   path), through a temporary file and a rename, so that ten applies starting at once read a whole file or
 *   none. Files of other bundles (an earlier routerjobs), and temporaries of applies killed before their
 *   rename, are removed then. Nothing here ever fails the command:
 *   a cache that cannot be read or written is skipped, and says so under `NODE_DEBUG=routerjobs_code_cache`.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { debuglog } from "node:util";
import { Script } from "node:vm";

const debug = debuglog("routerjobs_code_cache");
const SUFFIX = ".v8cache";

/** What became of the cache: turned off or no private folder, no file yet, or a file V8 took or refused. */
export type CacheUse = "off" | "none" | "accepted" | "rejected";

export interface CachedBundle {
  /** What the bundle put in `module.exports`. */
  readonly exports: unknown;
  readonly cache: CacheUse;
  /** Writes V8's code for the bundle if none was read; call it after a successful run. Never throws. */
  save(): void;
}

/** Runs the CommonJS file `file`, whose content has the sha256 `sha256`, with its cached code when there is one. */
export function runWithCodeCache(file: string, sha256: string): CachedBundle {
  const folder = cacheFolder();
  const cacheFile = folder === undefined ? undefined : join(folder, cacheName(sha256));
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile);
  const source = readFileSync(file, "utf8");
  // Node's own CommonJS wrapper, on the first line so that line numbers in stack traces stay the file's.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const cache: CacheUse =
    cacheFile === undefined
      ? "off"
      : cachedData === undefined
        ? "none"
        : script.cachedDataRejected
          ? "rejected"
          : "accepted";
  debug("cache %s for %s", cache, file);
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (
    this: unknown,
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  // `this` is `module.exports` at a CommonJS module's top level, as Node's loader calls its wrapper.
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    cache,
    save() {
      if (folder === undefined || cacheFile === undefined || cache === "accepted") return;
      try {
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        // Made by somebody else between the look at the start and now: not ours to write in.
        if (!isPrivateFolder(folder)) return;
        const temporary = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
        renameSync(temporary, cacheFile);
        debug("cache written to %s", cacheFile);
        removeLeftovers(folder, sha256);
      } catch (error) {
        debug("cache not written: %s", (error as Error).message);
      }
    },
  };
}

/** The cache's folder, or undefined when the cache is turned off or the folder is not this user's alone. */
function cacheFolder(): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE === "1") return undefined;
  const user = process.getuid?.();
  // Without user ids (Windows) the temp folder is the user's own already.
  const name = user === undefined ? "routerjobs-code-cache" : `routerjobs-code-cache-${user}`;
  const folder = join(process.env.NODE_COMPILE_CACHE || tmpdir(), name);
  return existsSync(folder) && !isPrivateFolder(folder) ? undefined : folder;
}

function cacheName(sha256: string): string {
  return `${sha256}-${process.version}-${process.arch}${SUFFIX}`;
}

function readCache(cacheFile: string): Buffer | undefined {
  try {
    return readFileSync(cacheFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      debug("cache not read: %s", (error as Error).message);
    return undefined;
  }
}

/** A real folder of this user's that nobody else may write to (anybody who can, can run code as this user). */
function isPrivateFolder(folder: string): boolean {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(folder);
  } catch {
    return false;
  }
  const user = process.getuid?.();
  const ok = stat.isDirectory() && (user === undefined || (stat.uid === user && (stat.mode & 0o022) === 0));
  if (!ok) debug("%s is not a folder of this user's that only this user may write: no cache", folder);
  return ok;
}

/**
 * Removes the caches of other bundles (an earlier routerjobs), and the temporary files of applies killed
 * between their write and their rename (`<cache>.<pid>.tmp` of a process that is gone).
 */
function removeLeftovers(folder: string, sha256: string): void {
  for (const name of readdirSync(folder)) {
    const temporary = /\.v8cache\.(\d+)\.tmp$/.exec(name);
    const stale = temporary
      ? !isRunning(Number(temporary[1]))
      : name.endsWith(SUFFIX) && !name.startsWith(sha256);
    if (stale) rmSync(join(folder, name), { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user's; only ESRCH says that none has this pid.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
