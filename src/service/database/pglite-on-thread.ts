import { SHARE_ENV, Worker, type WorkerOptions } from "node:worker_threads";
import { EnvironmentError } from "../../errors.js";
import { lockDataDirectory } from "./data-directory-lock.js";
import type { Database, Queryable } from "./database.js";
import type { PgliteSource } from "./pglite.js";
import { fromWire, type Reply, type Request } from "./thread-protocol.js";

/**
 * Embedded PGlite on a thread of its own. PostgreSQL in wasm, and PGlite's parsing of each result, took much
 * of the service's CPU under a long router's list requests, all of it on the event loop that also answers
 * every other router's calls, which waited behind it while another router's pages were read (figures:
 * docs/performance.md). On its own thread that work runs beside the event loop, on another core; the caller
 * only receives rows by structured clone.
 *
 * One thread serves every embedded database of the process (a service has one, a receiver one, a test many):
 * PGlite's code is loaded once, and a database opens as fast as it did on the caller's thread.
 *
 * The data directory's lock stays on the calling thread: it is the process's (a second open in this process is
 * refused too), and a caller whose event loop stalls past the lock's refresh is the one that must stop writing.
 */
export async function openPgliteOnThread(
  location: string,
  onLost: (error: Error) => void = () => {},
): Promise<Database> {
  if (location === "memory://")
    return open(
      { memory: true },
      async () => {},
      () => undefined,
      onLost,
    );
  let lost: Error | undefined;
  const unlock = await lockDataDirectory(location, (error) => {
    lost = error;
    onLost(error);
  });
  try {
    return await open({ dataDir: location }, unlock, () => lost, onLost);
  } catch (error) {
    await unlock();
    throw error;
  }
}

interface Waiting {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /**
   * Where the statement was issued: an error's stack names the caller, not only the database's thread. Kept
   * unformatted (V8 formats a stack when it is read): formatting it for every statement would cost CPU on
   * every statement for the few that fail.
   */
  readonly trace: Error;
}

/** `Omit` over each member of a union (TypeScript's own `Omit` merges the members first). */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The process's database thread, started with the first database and kept while the process lives. */
class DatabaseThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  /** Set once the thread is gone: every statement after it fails with this. */
  gone: Error | undefined;
  /** Told when the thread is gone: the open databases' owners, who must stop serving. */
  readonly onGone = new Set<(error: Error) => void>();

  constructor() {
    this.worker = startWorker();
    this.worker.on("message", (reply: Reply) =>
      this.settle(reply.id, (waiter) =>
        reply.ok ? waiter.resolve(reply.value) : waiter.reject(fromWire(reply.error, waiter.trace.stack)),
      ),
    );
    this.worker.on("error", (error) => this.end(threadFailure(error)));
    this.worker.on("exit", (code) => this.end(new Error(`the database thread exited (code ${code})`)));
    // An idle thread keeps no process alive: it is referenced only while a statement waits, as a socket is.
    this.worker.unref();
  }

  /** Sends `request` under a new id; returns the id and the thread's answer. */
  send<T>(request: DistributiveOmit<Request, "id">) {
    const id = this.nextId++;
    const reply = this.gone
      ? Promise.reject<T>(this.gone)
      : new Promise<T>((resolve, reject) => {
          if (this.waiting.size === 0) this.worker.ref();
          this.waiting.set(id, {
            resolve: resolve as (value: unknown) => void,
            reject,
            trace: new Error(),
          });
          this.worker.postMessage({ ...request, id });
        });
    return { id, reply };
  }

  private settle(id: number, outcome: (waiter: Waiting) => void): void {
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker.unref();
    outcome(waiter);
  }

  private end(error: Error): void {
    if (this.gone) return;
    this.gone = error;
    if (thread === this) thread = undefined;
    for (const id of [...this.waiting.keys()]) this.settle(id, (waiter) => waiter.reject(error));
    for (const tell of this.onGone) tell(error);
  }

  /** Stops the thread from outside, as a crash would: for the tests of what its databases' owners then do. */
  stop(): Promise<number> {
    return this.worker.terminate();
  }
}

let thread: DatabaseThread | undefined;

/**
 * What the thread's failure says. PGlite is an optional peer of the package (construct users and a service on
 * PostgreSQL do without its 27 MB): a thread that cannot load it names the install, or PostgreSQL instead.
 */
function threadFailure(error: Error): Error {
  const missing =
    (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" &&
    /'@electric-sql\/pglite'/.test(error.message);
  if (missing)
    return new EnvironmentError(
      "the embedded database needs @electric-sql/pglite, which is not installed: run `npm install @electric-sql/pglite@^0.5` where routerjobs is installed, or use PostgreSQL (--database postgres://...)",
      { cause: error },
    );
  return new Error(`the database thread failed: ${error.message}`, { cause: error });
}

/**
 * Stops the process's database thread as a crash would (its open databases are lost, their owners told); the
 * next open starts another. For tests: a thread cannot be made to crash from outside otherwise.
 */
export async function stopDatabaseThread(): Promise<void> {
  await thread?.stop();
}

/**
 * Built, this module is JavaScript and the thread's module sits beside it (dist/service/database/, and dist/bundle/ where
 * the CLI's bundle has it as an entry of its own). Under the tests and benches it is TypeScript run by tsx: the
 * thread then registers tsx before it loads its module (Node 20 does not apply `--import` hooks to a worker's
 * entry).
 */
function startWorker(): Worker {
  const options: WorkerOptions = {
    // None of the process's Node options: a thread inherits them by default, and some refuse to start one
    // (`node --input-type=module -e ...` does). V8's flags are the process's anyway.
    execArgv: [],
    // The process's environment itself, not a copy taken when the thread started: the thread is kept for the
    // process's life, and where a new database is made (`ROUTERJOBS_CACHE_DIR`) may change in between.
    env: SHARE_ENV,
    // The thread's young generation at 2 MiB instead of growing to V8's 16-32: its garbage is PGlite's
    // short-lived result buffers, and a second young generation of full size is RSS the service keeps for
    // nothing (figures: docs/performance.md, bench/store-memory.bench.ts).
    resourceLimits: { maxYoungGenerationSizeMb: 2 },
  };
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./pglite-thread.js", import.meta.url), options);
  const entry = new URL("./pglite-thread.ts", import.meta.url).href;
  const bootstrap = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * Opens `source` on the process's database thread. Once `lost()` names an error (the data directory's lock
 * was lost) nothing more is sent but the close: another process may be writing the directory. `onLost` hears
 * of the thread's end too: the database is gone with it, and its owner stops serving as it does for the lock.
 */
async function open(
  source: PgliteSource,
  unlock: () => Promise<void>,
  lost: () => Error | undefined,
  onLost: (error: Error) => void,
): Promise<Database> {
  thread ??= new DatabaseThread();
  const host = thread;
  const opened = host.send({ op: "open", source });
  await opened.reply;
  const db = opened.id;
  let closed = false;
  const threadGone = (error: Error) => {
    if (!closed) onLost(error);
  };
  host.onGone.add(threadGone);

  const send = <T>(request: DistributiveOmit<Request, "id">, fenced = true) => {
    // A lost database says why even once its owner has closed it: the loss, not the close, is the news.
    const fence = (fenced ? lost() : undefined) ?? (closed ? new Error("the database is closed") : undefined);
    return fence ? { id: 0, reply: Promise.reject<T>(fence) } : host.send<T>(request);
  };
  const statement =
    (tx?: number): Queryable["query"] =>
    async <Row extends object>(sql: string, params?: readonly unknown[]) => ({
      rows: await send<Row[]>({ op: "query", db, sql, params, ...(tx === undefined ? {} : { tx }) }).reply,
    });

  return {
    kind: "pglite",
    query: statement(),
    transaction: async (fn) => {
      const begun = send({ op: "begin", db });
      await begun.reply;
      const tx = begun.id;
      let value: Awaited<ReturnType<typeof fn>>;
      try {
        value = await fn({ query: statement(tx) });
        // Not committed once the lock is lost: rolled back, so the thread is free for the close.
        const fence = lost();
        if (fence) throw fence;
      } catch (error) {
        await send({ op: "end", tx, commit: false }, false).reply.catch(() => {});
        throw error;
      }
      await send({ op: "end", tx, commit: true }).reply;
      return value;
    },
    close: async () => {
      if (closed) return;
      try {
        // A thread that has ended took the database with it: nothing is left to close.
        if (!host.gone) await send({ op: "close", db }, false).reply;
      } finally {
        closed = true;
        host.onGone.delete(threadGone);
        await unlock();
      }
    },
  };
}
