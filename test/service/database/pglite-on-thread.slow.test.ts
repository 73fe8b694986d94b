/**
 * Embedded PGlite on the process's database thread (src/service/database/pglite-on-thread.ts): statements run beside the
 * caller's event loop, answers and errors cross intact, transactions hold other statements back as PGlite does,
 * and an idle thread keeps no process alive.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../../src/service/database/database.js";
import { openPgliteHere } from "../../../src/service/database/pglite.js";
import { stopDatabaseThread } from "../../../src/service/database/pglite-on-thread.js";

/** A statement that keeps PostgreSQL busy for a while (counting two million generated rows). */
const LONG_STATEMENT = "SELECT count(*)::int AS n FROM generate_series(1, 2000000)";

/** How many times the caller's event loop turned while `statement` ran. */
async function turnsDuring(statement: Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const turn = () => {
    turns++;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  await statement;
  running = false;
  return turns;
}

describe("PGlite on the database thread", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ location: "memory://" });
    await db.query("CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL, at timestamptz, doc jsonb)");
  });
  afterAll(async () => db?.close());

  it("runs a statement beside the caller's event loop, which on the caller's thread stands still", async () => {
    const here = await openPgliteHere({ memory: true });
    try {
      // The same statement on the caller's thread: the loop turns only around it, not during it.
      const blocked = await turnsDuring(here.query(LONG_STATEMENT));
      expect(blocked).toBeLessThan(20);
    } finally {
      await here.close();
    }
    expect(await turnsDuring(db.query(LONG_STATEMENT))).toBeGreaterThan(100);
  });

  it("returns dates, JSON and numbers as PGlite parses them", async () => {
    const at = new Date("2026-11-27T12:00:00.000Z");
    await db.query("INSERT INTO item VALUES (1, 'one', $1, $2::jsonb)", [
      at,
      JSON.stringify({ a: [1, "x"] }),
    ]);
    const { rows } = await db.query("SELECT id, name, at, doc FROM item WHERE id = 1");
    expect(rows).toEqual([{ id: 1, name: "one", at, doc: { a: [1, "x"] } }]);
    expect(rows[0]?.at).toBeInstanceOf(Date);
  });

  it("fails a statement with PostgreSQL's fields, and a stack that names the caller", async () => {
    const duplicate = await db.query("INSERT INTO item VALUES (1, 'again')").catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate).toMatchObject({ code: "23505", constraint: "item_pkey" });
    expect((duplicate as Error).message).toMatch(
      /duplicate key value violates unique constraint "item_pkey"/,
    );
    expect((duplicate as Error).stack).toContain("pglite-on-thread.slow.test.ts");
    await expect(db.query("SELEC 1")).rejects.toMatchObject({ code: "42601" });
  });

  it("commits a transaction's statements together; a statement outside waits for its end", async () => {
    let inside: () => void = () => {};
    const begun = new Promise<void>((resolve) => {
      inside = resolve;
    });
    let finish: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const transaction = db.transaction(async (tx) => {
      await tx.query("INSERT INTO item (id, name) VALUES (10, 'ten')");
      inside();
      await gate;
      await tx.query("INSERT INTO item (id, name) VALUES (11, 'eleven')");
      return "done";
    });
    await begun;
    const outside = db.query<{ n: number }>("SELECT count(*)::int AS n FROM item WHERE id >= 10");
    finish();
    expect(await transaction).toBe("done");
    expect((await outside).rows).toEqual([{ n: 2 }]);
  });

  it("rolls a transaction back when its function throws, and refuses its statements afterwards", async () => {
    let kept: Parameters<Parameters<Database["transaction"]>[0]>[0] | undefined;
    await expect(
      db.transaction(async (tx) => {
        kept = tx;
        await tx.query("INSERT INTO item (id, name) VALUES (20, 'twenty')");
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect((await db.query("SELECT id FROM item WHERE id = 20")).rows).toEqual([]);
    await expect(kept?.query("SELECT 1")).rejects.toThrow(/has ended: a statement cannot run in it/);
  });

  it("fails a commit PostgreSQL refuses with its error, and the database goes on", async () => {
    await db.query(
      "CREATE TABLE deferred (id int PRIMARY KEY, parent int REFERENCES item (id) DEFERRABLE INITIALLY DEFERRED)",
    );
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO deferred VALUES (1, 999)");
      }),
    ).rejects.toMatchObject({ code: "23503" });
    expect((await db.query("SELECT count(*)::int AS n FROM deferred")).rows).toEqual([{ n: 0 }]);
  });

  it("keeps each database apart on the one thread, and refuses statements once one is closed", async () => {
    const other = await openDatabase({ location: "memory://" });
    await other.query("CREATE TABLE item (id int)");
    await other.query("INSERT INTO item VALUES (7)");
    expect((await other.query("SELECT id FROM item")).rows).toEqual([{ id: 7 }]);
    await other.close();
    await expect(other.query("SELECT 1")).rejects.toThrow("the database is closed");
    expect((await db.query("SELECT count(*)::int AS n FROM item WHERE id = 7")).rows).toEqual([{ n: 0 }]);
  });
});

describe("the database thread and the process", () => {
  it("keeps no process alive once its statements are answered (a CLI that forgets to close still exits)", () => {
    const database = pathToFileURL(
      join(import.meta.dirname, "..", "..", "..", "dist", "service", "database", "database.js"),
    ).href;
    const script = `const { openDatabase } = await import(${JSON.stringify(database)});
      const db = await openDatabase({ location: "memory://" });
      console.log((await db.query("SELECT 41 + 1 AS answer")).rows[0].answer);`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 100_000,
    });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("42");
    expect(run.status).toBe(0);
  });
});

describe("when the database thread ends", () => {
  it("fails what waits and what comes, tells each open database's owner, and the next open starts another", async () => {
    const told: Error[] = [];
    const db = await openDatabase({ location: "memory://", onLost: (error) => told.push(error) });
    const closedBefore = await openDatabase({
      location: "memory://",
      onLost: () => told.push(new Error("a closed database's owner was told")),
    });
    await closedBefore.close();
    const waiting = db.query(LONG_STATEMENT);
    await stopDatabaseThread();
    await expect(waiting).rejects.toThrow(/the database thread exited/);
    await expect(db.query("SELECT 1")).rejects.toThrow(/the database thread exited/);
    expect(told.map((error) => error.message)).toEqual([expect.stringMatching(/the database thread exited/)]);
    await db.close();

    const next = await openDatabase({ location: "memory://" });
    try {
      expect((await next.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await next.close();
    }
  });
});
