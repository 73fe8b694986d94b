/**
 * The store's statements on PGlite, each prepared once (src/service/database/pglite-statements.ts): what a caller gets is
 * what `PGlite.query` gave (values, types, errors, transactions), a schema change does not break a kept plan,
 * and the prepared statements PostgreSQL holds stay bounded.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queryable } from "../../../src/service/database/database.js";
import { toJsonb } from "../../../src/service/database/jsonb.js";
import { openPgliteHere } from "../../../src/service/database/pglite.js";
import { preparedStatements } from "../../../src/service/database/pglite-statements.js";
import { PLAN_EACH_RUN } from "../../../src/service/database/plan-each-run.js";

describe("prepared statements on PGlite", () => {
  let pg: PGlite;
  beforeAll(async () => {
    pg = await PGlite.create();
    await pg.exec(`CREATE TABLE item (id uuid PRIMARY KEY, name text NOT NULL UNIQUE, done boolean NOT NULL,
      at timestamptz, doc jsonb, n int)`);
  });
  afterAll(async () => pg?.close());

  const ID_A = "a0000000-0000-4000-8000-00000000000a";
  const ID_B = "b0000000-0000-4000-8000-00000000000b";
  const AT = new Date("2026-11-28T12:34:56.789Z");

  it("binds and returns values as PGlite.query does: dates, booleans, JSON, arrays, NULL", async () => {
    const statements = preparedStatements(pg);
    const insert =
      "INSERT INTO item (id, name, done, at, doc, n) VALUES ($1, $2, $3, $4, $5::jsonb, $6) RETURNING *";
    const [mine] = await statements.query(
      insert,
      [ID_A, "a", true, AT, toJsonb({ x: [1, "two"] }), 7],
      false,
    );
    const theirs = (await pg.query("SELECT * FROM item WHERE id = $1", [ID_A])).rows[0];
    expect(mine).toEqual(theirs);
    expect(mine).toEqual({ id: ID_A, name: "a", done: true, at: AT, doc: { x: [1, "two"] }, n: 7 });
    await statements.query(insert, [ID_B, "b", false, null, null, undefined], false);
    const picked = await statements.query<{ name: string }>(
      "SELECT name FROM item WHERE id = ANY($1::uuid[]) AND done = $2 ORDER BY name",
      [[ID_A, ID_B], false],
      false,
    );
    expect(picked).toEqual([{ name: "b" }]);
  });

  it("fails with PostgreSQL's own error, and the next statement (the same text too) runs", async () => {
    const statements = preparedStatements(pg);
    const insert = "INSERT INTO item (id, name, done) VALUES ($1, $2, false)";
    const failure = await statements
      .query(insert, ["c0000000-0000-4000-8000-00000000000c", "a"], false)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "23505", constraint: "item_name_key" });
    await statements.query(insert, ["c0000000-0000-4000-8000-00000000000c", "c"], false);
    const bad = await statements
      .query("SELECT nonsense FROM item", [], false)
      .catch((error: unknown) => error);
    expect(bad).toMatchObject({ code: "42703", message: 'column "nonsense" does not exist' });
    // Not kept: the same text fails the same way, and a good one still runs.
    await expect(statements.query("SELECT nonsense FROM item", [], false)).rejects.toMatchObject({
      code: "42703",
    });
    expect(await statements.query("SELECT count(*)::int AS n FROM item", [], false)).toEqual([{ n: 3 }]);
  });

  it("keeps working across a schema change that alters a kept statement's result", async () => {
    const statements = preparedStatements(pg);
    await statements.query("CREATE TABLE shape (id int)", [], false);
    await statements.query("INSERT INTO shape VALUES (1)", [], false);
    expect(await statements.query("SELECT * FROM shape", [], false)).toEqual([{ id: 1 }]);
    // A kept plan of `SELECT *` would now fail: "cached plan must not change result type".
    await statements.query("ALTER TABLE shape ADD COLUMN label text DEFAULT 'one'", [], false);
    expect(await statements.query("SELECT * FROM shape", [], false)).toEqual([{ id: 1, label: "one" }]);
  });

  it("runs inside PGlite's transaction: a rollback undoes its statements", async () => {
    const statements = preparedStatements(pg);
    const count = async () =>
      (await statements.query<{ n: number }>("SELECT count(*)::int AS n FROM item", [], false))[0]?.n;
    const before = await count();
    await pg
      .transaction(async () => {
        await statements.query(
          "INSERT INTO item (id, name, done) VALUES ($1, $2, true)",
          ["d0000000-0000-4000-8000-00000000000d", "d"],
          true,
        );
        expect(
          await statements.query<{ n: number }>("SELECT count(*)::int AS n FROM item", [], true),
        ).toEqual([{ n: (before ?? 0) + 1 }]);
        throw new Error("roll it back");
      })
      .catch(() => {});
    expect(await count()).toBe(before);
  });

  it("holds at most the number of statements it keeps, however many texts it is given", async () => {
    const kept = 8;
    const statements = preparedStatements(pg, kept);
    const held = async () =>
      (
        await pg.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'routerjobs\\_%'",
        )
      ).rows[0]?.n;
    const before = await held();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 40; i++) {
        expect(await statements.query<{ i: number }>(`SELECT ${i}::int AS i`, [], false)).toEqual([{ i }]);
      }
    }
    // An evicted statement is closed with the next one sent: one more may be held until then.
    expect((await held()) ?? 0).toBeLessThanOrEqual((before ?? 0) + kept + 1);
  });
});

describe("a statement planned for each run's values", () => {
  let pg: PGlite;
  beforeAll(async () => {
    pg = await PGlite.create();
    await pg.exec(`CREATE TABLE reading (id int PRIMARY KEY, v int NOT NULL);
      INSERT INTO reading SELECT i, i % 1000 FROM generate_series(1, 20000) AS i;
      CREATE INDEX reading_v ON reading (v); ANALYZE reading`);
  });
  afterAll(async () => pg?.close());

  const OPTIONAL_FILTER = "SELECT count(*)::int AS n FROM reading WHERE ($1::int IS NULL OR v = $1)";
  /** The plan PostgreSQL would run for the kept statement of `text` with `value`, or undefined when none is kept. */
  const keptPlan = async (text: string, value: number) => {
    const { rows } = await pg.query<{ name: string }>(
      "SELECT name FROM pg_prepared_statements WHERE statement = $1",
      [text],
    );
    const name = rows[0]?.name;
    if (!name) return undefined;
    const plan = await pg.query<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) EXECUTE ${name}(${value})`);
    return plan.rows.map((row) => row["QUERY PLAN"]).join("\n");
  };

  it("a kept plan for any value cannot use the index an optional filter's value could (why the mark exists)", async () => {
    const statements = preparedStatements(pg);
    for (let run = 0; run < 8; run++) await statements.query(OPTIONAL_FILTER, [null], false);
    expect(await statements.query(OPTIONAL_FILTER, [5], false)).toEqual([{ n: 20 }]);
    expect(await keptPlan(OPTIONAL_FILTER, 5)).not.toContain("reading_v");
  });

  it("one marked PLAN_EACH_RUN is kept by no name: each run is planned for its values, and answers the same", async () => {
    const statements = preparedStatements(pg);
    const marked = `${PLAN_EACH_RUN} ${OPTIONAL_FILTER}`;
    for (let run = 0; run < 8; run++)
      expect(await statements.query(marked, [null], false)).toEqual([{ n: 20000 }]);
    expect(await statements.query(marked, [5], false)).toEqual([{ n: 20 }]);
    expect(await keptPlan(marked, 5)).toBeUndefined();
    // The plan a run with that value gets, as PostgreSQL makes it for the value at hand:
    const plan = await pg.query<{ "QUERY PLAN": string }>(
      `EXPLAIN (COSTS OFF) ${OPTIONAL_FILTER.replaceAll("$1", "5")}`,
    );
    expect(plan.rows.map((row) => row["QUERY PLAN"]).join("\n")).toContain("reading_v");
  });
});

describe("the store's transactions on PGlite", () => {
  it("refuse a statement sent in a transaction that has ended, instead of running it outside", async () => {
    const db = await openPgliteHere({ memory: true });
    try {
      await db.query("CREATE TABLE note (text text NOT NULL)");
      let kept: Queryable | undefined;
      await db.transaction(async (tx) => {
        kept = tx;
        await tx.query("INSERT INTO note VALUES ('inside')");
      });
      await expect(kept?.query("INSERT INTO note VALUES ('after')")).rejects.toThrow(/transaction has ended/);
      expect((await db.query("SELECT text FROM note")).rows).toEqual([{ text: "inside" }]);
    } finally {
      await db.close();
    }
  });
});
