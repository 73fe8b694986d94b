import { parentPort } from "node:worker_threads";
import { RouterjobsError } from "../../errors.js";
import type { Database, Queryable } from "./database.js";
import { openPgliteHere, type PgliteDatabase, type PgliteSource, stoppedError } from "./pglite.js";
import { type Reply, type Request, toWire } from "./thread-protocol.js";

/**
 * The thread the embedded databases of a process run on (pglite-on-thread.ts starts it): PostgreSQL in wasm
 * executes each statement and PGlite parses its rows here, so the caller's event loop only receives them. Each
 * database runs its statements one at a time, in the order they arrive, as PGlite does on any thread; a
 * transaction holds the others back until its `end`.
 *
 * A database whose PostgreSQL panicked (pglite.ts: the WAL could not be written, a full disk) is down: its
 * statements fail with the PANIC's error (a full disk: SQLSTATE 53100, so callers answer 503 with Retry-After),
 * and a new instance is opened on its data directory, at most every RESTART_RETRY_MS, until one starts (space
 * is back). Its start replays the WAL: every commit made before the PANIC is there, and only those were
 * acknowledged (the callers of the others got the error).
 */

/**
 * How long after a failed restart the next statement tries again: a start that fails on a full disk still
 * costs a database's start, which statements retrying at once would pay over and over.
 */
const RESTART_RETRY_MS = 1000;

/** A database of the thread: its instance, replaced when it has stopped and a new one could start. */
interface Store {
  readonly source: PgliteSource;
  current: PgliteDatabase;
  restart: { retryAt: number; starting?: Promise<PgliteDatabase> } | undefined;
}

/** Thrown into PGlite's transaction to roll it back when the caller ends it without committing. */
class RollBack extends RouterjobsError {}

interface OpenTransaction {
  readonly tx: Queryable;
  finish(commit: boolean, endId: number): void;
}

const port = parentPort;
if (!port) throw new Error("pglite-thread.ts runs as a worker thread (pglite-on-thread.ts starts it)");

const databases = new Map<number, Store>();
const transactions = new Map<number, OpenTransaction>();
const reply = (message: Reply) => port.postMessage(message);
const fail = (id: number, error: unknown) => reply({ id, ok: false, error: toWire(error) });
const answer = (id: number, work: Promise<unknown>) =>
  work.then(
    (value) => reply({ id, ok: true, value }),
    (error: unknown) => fail(id, error),
  );

port.on("message", (request: Request) => {
  if (request.op === "end") {
    const open = transactions.get(request.tx);
    if (!open) fail(request.id, new Error(`transaction ${request.tx} is not open`));
    else open.finish(request.commit, request.id);
    return;
  }
  if (request.op === "open") {
    answer(
      request.id,
      openPgliteHere(request.source).then((db) => {
        databases.set(request.id, { source: request.source, current: db, restart: undefined });
      }),
    );
    return;
  }
  const store = databases.get(request.db);
  if (!store) {
    fail(request.id, new Error(`database ${request.db} is not open on this thread`));
    return;
  }
  switch (request.op) {
    case "query": {
      if (request.tx === undefined) {
        answer(
          request.id,
          live(store).then(async (db) => (await db.query(request.sql, request.params)).rows),
        );
        return;
      }
      const target = transactions.get(request.tx)?.tx;
      if (!target)
        fail(request.id, new Error(`transaction ${request.tx} has ended: a statement cannot run in it`));
      else
        answer(
          request.id,
          target.query(request.sql, request.params).then(({ rows }) => rows),
        );
      return;
    }
    case "begin":
      live(store).then(
        (db) => begin(db, request.id),
        (error: unknown) => fail(request.id, error),
      );
      return;
    case "close":
      databases.delete(request.db);
      answer(request.id, store.current.close());
  }
});

/** The store's instance; one that stopped is replaced by a new one when it starts, else this throws. */
async function live(store: Store): Promise<Database> {
  const stopped = store.current.stopped;
  if (!stopped) return store.current;
  // A database in memory died with its instance: there is nothing to start again from.
  if ("memory" in store.source) throw stoppedError(stopped);
  store.restart ??= { retryAt: 0 };
  const restart = store.restart;
  if (!restart.starting) {
    if (Date.now() < restart.retryAt) throw stoppedError(stopped);
    restart.starting = openPgliteHere(store.source);
  }
  try {
    const db = await restart.starting;
    if (store.restart === restart) {
      store.current = db;
      store.restart = undefined;
    }
    return db;
  } catch (error) {
    delete restart.starting;
    restart.retryAt = Date.now() + RESTART_RETRY_MS;
    throw Object.assign(stoppedError(stopped), { restartError: String(error) });
  }
}

/**
 * Opens transaction `id` in PGlite and answers `begin` once it runs; `end` settles it, and is answered once
 * PGlite has committed (and the commit is durable) or rolled back.
 */
function begin(db: Database, id: number): void {
  let begun = false;
  let endId: number | undefined;
  db.transaction(
    (tx) =>
      new Promise<void>((resolve, reject) => {
        transactions.set(id, {
          tx,
          finish: (commit, end) => {
            endId = end;
            transactions.delete(id);
            if (commit) resolve();
            else reject(new RollBack());
          },
        });
        begun = true;
        reply({ id, ok: true });
      }),
  ).then(
    () => reply({ id: endId as number, ok: true }),
    (error: unknown) => {
      transactions.delete(id);
      if (!begun) fail(id, error);
      else if (endId === undefined) return;
      else if (error instanceof RollBack) reply({ id: endId, ok: true });
      else fail(endId, error);
    },
  );
}
