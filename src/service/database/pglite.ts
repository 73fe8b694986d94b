import { readFile } from "node:fs/promises";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { Database } from "./database.js";
import {
  DurableNodeFS,
  durableStartParams,
  mayWrite,
  type RunStatement,
  type WalFlusher,
  walFlusher,
} from "./pglite-durability.js";
import { freshDatabaseTarball, initialiseDataDirectory } from "./pglite-init.js";
import { keepWasmAtBaselineTier, PGLITE_MEMORY_SETTINGS } from "./pglite-memory.js";
import { type PreparedStatements, preparedStatements } from "./pglite-statements.js";

/**
 * PostgreSQL extensions the schemas may create. pg_trgm: a trigram index finds the jobs whose description
 * contains a text without reading every job of the router (the service's `text` filter, schema migration 5).
 */
const EXTENSIONS = { pg_trgm };

/**
 * PostgreSQL settings for embedded PGlite: its memory (pglite-memory.ts), and the planner's cost of a random
 * page read. PostgreSQL's default (4, for spinning disks) made the planner read all of a long router's jobs
 * rather than use the far cheaper trigram index for a marker lookup (figures: docs/performance.md); PGlite's
 * pages are in this process's buffers or the page cache, where 1.1 is the usual setting.
 */
const PGLITE_SETTINGS: readonly string[] = [...PGLITE_MEMORY_SETTINGS, "random_page_cost=1.1"];

/** Where a PGlite database lives: a data directory (created when it holds none yet), or memory. */
export type PgliteSource = { readonly dataDir: string } | { readonly memory: true };

/**
 * Opens PGlite in the calling thread: PostgreSQL compiled to wasm runs, and parses every result, on this
 * thread's event loop. The service and the receiver call it on a thread of their own (pglite-thread.ts); the
 * caller holds the data directory's lock.
 *
 * A fresh database is unpacked here too, on that thread: the template's garbage (the whole tarball) is then
 * collected by the heap that PGlite keeps busy, where the caller's mostly idle heap held it, and the
 * service's RSS with it (figures: docs/performance.md, bench/store-memory.bench.ts).
 */
export async function openPgliteHere(source: PgliteSource): Promise<PgliteDatabase> {
  keepWasmAtBaselineTier();
  const pgliteWasmModule = await compiledPglite();
  // A throwaway database has no disk to reach: it keeps PGlite's own start (no fsync, synchronous commits).
  if ("memory" in source) {
    const fresh = await freshDatabaseTarball();
    const db = await PGlite.create({
      ...(fresh ? { loadDataDir: new TarballBlob(fresh) } : {}),
      pgliteWasmModule,
      postgresqlconf: [...PGLITE_SETTINGS],
      extensions: EXTENSIONS,
    });
    return wrapPglite(db, preparedStatements(db), () => ({ noteWrite: () => {}, durable: async () => {} }));
  }
  await initialiseDataDirectory(source.dataDir);
  const db = await PGlite.create({
    dataDir: source.dataDir,
    pgliteWasmModule,
    fs: new DurableNodeFS(source.dataDir),
    startParams: durableStartParams(),
    postgresqlconf: [...PGLITE_SETTINGS],
    extensions: EXTENSIONS,
  });
  return wrapPglite(db, preparedStatements(db), walFlusher);
}

/** A compiled wasm module: this project's TypeScript libraries (ES2023, node) declare no WebAssembly API. */
type WasmModule = NonNullable<PGliteOptions["pgliteWasmModule"]>;
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> };
};

let compiled: Promise<WasmModule> | undefined;
/**
 * PostgreSQL's wasm module, compiled once per thread: PGlite compiles it at every `create` otherwise, a large
 * part of an open's CPU, and a thread that opens several databases (tests, bench/) would pay that each time.
 * An open database holds the module anyway.
 */
function compiledPglite(): Promise<WasmModule> {
  compiled ??= readFile(new URL("./pglite.wasm", import.meta.resolve("@electric-sql/pglite")))
    .then((bytes) => wasm.compile(bytes))
    .catch((error: unknown) => {
      compiled = undefined;
      throw error;
    });
  return compiled;
}

/**
 * The template tarball as the Blob `loadDataDir` takes, handing PGlite the bytes it reads as they are: Node's
 * `Blob.arrayBuffer()` copies the whole template through its chunked reader, CPU paid by each fresh database
 * (figures: docs/performance.md).
 * PGlite reads only `arrayBuffer()` and `type` (a tar, not gzip) of it.
 */
class TarballBlob extends Blob {
  constructor(private readonly tarball: Buffer) {
    super([], { type: "application/x-tar" });
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.tarball;
    return Promise.resolve(
      byteOffset === 0 && byteLength === buffer.byteLength && buffer instanceof ArrayBuffer
        ? buffer
        : (buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer),
    );
  }
}

/** A PGlite database, and whether PostgreSQL panicked in it (then nothing is sent to it any more). */
export interface PgliteDatabase extends Database {
  /** The PANIC (or FATAL) that ended the instance; undefined while it serves. */
  readonly stopped: Error | undefined;
}

/** Whether PostgreSQL said its backend is gone (a real server starts another; PGlite's instance is unusable). */
function isFatal(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | undefined)?.severity;
  return severity === "PANIC" || severity === "FATAL";
}

/** The error of a statement after the instance stopped: the PANIC's code (53100 for a full disk), and why. */
export function stoppedError(cause: Error): Error {
  const error = new Error(
    `the database stopped (${cause.message}) and starts again once it can write; nothing of this statement was done`,
    { cause },
  );
  const code = (cause as { code?: unknown }).code;
  if (typeof code === "string") Object.assign(error, { code });
  return error;
}

/**
 * `flusher.durable()` resolves once what was committed so far is on disk: every query and transaction waits for
 * it before it resolves, so nothing is answered from a commit that a power loss could undo.
 *
 * A PostgreSQL PANIC (the WAL could not be written: a full disk) ends a real backend; PGlite's instance lives
 * on with the backend half torn down, and its next statement that writes WAL spins for ever on the thread
 * (every database of the process stuck, SIGTERM unheard). So the calls reach PGlite one at
 * a time, each once the one before it has settled and been looked at (PGlite runs them one at a time anyway;
 * the wait for durability is outside the turn, so group commit still shares one flush): after a PANIC the
 * instance is never called again, not even to roll back or close, and every call fails (`stopped`).
 */
function wrapPglite(
  db: PGlite,
  statements: PreparedStatements,
  flusherFor: (run: RunStatement) => WalFlusher,
): PgliteDatabase {
  let stopped: Error | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  /** Runs `call` into PGlite in its turn, unless the instance stopped; a PANIC stops it. */
  const inTurn = <T>(call: () => Promise<T>): Promise<T> => {
    const run = tail.then(() => guarded(call));
    tail = run.catch(() => {});
    return run;
  };
  const guarded = async <T>(call: () => Promise<T>): Promise<T> => {
    if (stopped) throw stoppedError(stopped);
    try {
      return await call();
    } catch (error) {
      if (isFatal(error)) stopped ??= error as Error;
      throw error;
    }
  };
  // The flush is a statement too (it writes WAL): in its turn, and a PANIC in it stops the instance.
  const flusher = flusherFor((sql) => inTurn(() => statements.query(sql, [], false)));
  return {
    kind: "pglite",
    get stopped() {
      return stopped;
    },
    query: async <Row extends object>(sql: string, params?: readonly unknown[]) => {
      const rows = await inTurn(() => statements.query<Row>(sql, params, false));
      if (mayWrite(sql)) flusher.noteWrite();
      await flusher.durable();
      return { rows };
    },
    transaction: async (fn) => {
      const value = await inTurn(
        () =>
          new Promise<Awaited<ReturnType<typeof fn>>>((resolve, reject) => {
            // PGlite's transaction: BEGIN, then COMMIT or (when `fn` throws) ROLLBACK, holding its transaction
            // lock. Once the instance stopped, PGlite's transaction is left unsettled: its ROLLBACK would spin.
            let open = true;
            const abandon = (error: unknown) => {
              open = false;
              reject(error);
              return new Promise<never>(() => {});
            };
            db.transaction(async () => {
              let value: Awaited<ReturnType<typeof fn>>;
              try {
                value = await fn({
                  query: async <Row extends object>(sql: string, params?: readonly unknown[]) => {
                    // As PGlite's own transaction object: once it has ended, a statement would run outside it.
                    if (!open) throw new Error("the transaction has ended: a statement cannot run in it");
                    return { rows: await guarded(() => statements.query<Row>(sql, params, true)) };
                  },
                });
              } catch (error) {
                if (stopped) return abandon(error);
                throw error;
              }
              if (stopped) return abandon(stoppedError(stopped));
              return value;
            }).then(
              (value) => {
                open = false;
                resolve(value as Awaited<ReturnType<typeof fn>>);
              },
              (error: unknown) => {
                open = false;
                if (isFatal(error)) stopped ??= error as Error;
                reject(error);
              },
            );
          }),
      );
      flusher.noteWrite();
      await flusher.durable();
      return value;
    },
    close: async () => {
      if (!stopped) await inTurn(() => db.close());
    },
  };
}
