import { parentPort } from "node:worker_threads";
import { RouterjobsError } from "../../errors.js";
import type { Database, Queryable } from "./database.js";
import { openPgliteHere } from "./pglite.js";
import { type Reply, type Request, toWire } from "./thread-protocol.js";

/**
 * The thread the embedded databases of a process run on (pglite-on-thread.ts starts it): PostgreSQL in wasm
 * executes each statement and PGlite parses its rows here, so the caller's event loop only receives them. Each
 * database runs its statements one at a time, in the order they arrive, as PGlite does on any thread; a
 * transaction holds the others back until its `end`.
 */

/** Thrown into PGlite's transaction to roll it back when the caller ends it without committing. */
class RollBack extends RouterjobsError {}

interface OpenTransaction {
  readonly tx: Queryable;
  finish(commit: boolean, endId: number): void;
}

const port = parentPort;
if (!port) throw new Error("pglite-thread.ts runs as a worker thread (pglite-on-thread.ts starts it)");

const databases = new Map<number, Database>();
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
        databases.set(request.id, db);
      }),
    );
    return;
  }
  const db = databases.get(request.db);
  if (!db) {
    fail(request.id, new Error(`database ${request.db} is not open on this thread`));
    return;
  }
  switch (request.op) {
    case "query": {
      const target = request.tx === undefined ? db : transactions.get(request.tx)?.tx;
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
      begin(db, request.id);
      return;
    case "close":
      databases.delete(request.db);
      answer(request.id, db.close());
  }
});

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
