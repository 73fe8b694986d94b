/** Router state in a real jsonb column (PGlite): any string a script can make survives the round trip. */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../../src/service/database/database.js";
import { fromJsonb, toJsonb } from "../../../src/service/database/jsonb.js";

describe("router state in jsonb", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ location: "memory://" });
    await db.query("CREATE TABLE state (id int PRIMARY KEY, value jsonb)");
  });
  afterAll(async () => db?.close());

  const roundTrip = async (value: unknown) => {
    await db.query(
      "INSERT INTO state VALUES (1, $1::jsonb) ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value",
      [toJsonb(value)],
    );
    const { rows } = await db.query<{ value: unknown }>("SELECT value FROM state WHERE id = 1");
    return fromJsonb(rows[0]?.value);
  };

  it("keeps NUL and unpaired surrogates, which jsonb refuses as plain JSON", async () => {
    const state = { identity: "a\u0000b", log: ["\ud800 alone", "fine"], nested: { x: "\udc00" } };
    await expect(
      db.query("INSERT INTO state VALUES (2, $1::jsonb)", [JSON.stringify(state)]),
    ).rejects.toThrow();
    expect(await roundTrip(state)).toEqual(state);
  });

  it("returns any JSON value with any strings unchanged", async () => {
    const text = fc.string({ unit: "binary", maxLength: 40 });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        text,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 8 }), tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    await fc.assert(
      fc.asyncProperty(value, async (input) => {
        expect(await roundTrip(input)).toEqual(input);
      }),
      { numRuns: 150 },
    );
  });
});
