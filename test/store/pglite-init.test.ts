import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/database.js";
import { initialiseDataDirectory } from "../../src/store/pglite-init.js";

describe("a fresh PGlite data directory, created in a child process", () => {
  const dir = mkdtempSync(join(tmpdir(), "routerjobs-pglite-init-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is created once, then opened: what was committed is there after a reopen", async () => {
    const dataDir = join(dir, "db");
    const first = await openDatabase({ location: dataDir });
    await first.query("CREATE TABLE kept (id int PRIMARY KEY)");
    await first.transaction(async (tx) => {
      await tx.query("INSERT INTO kept VALUES (1), (2)");
    });
    await first.close();
    // An existing directory is left alone (no second initdb over it).
    await initialiseDataDirectory(dataDir);
    const second = await openDatabase({ location: dataDir });
    try {
      expect((await second.query<{ id: number }>("SELECT id FROM kept ORDER BY id")).rows).toEqual([
        { id: 1 },
        { id: 2 },
      ]);
    } finally {
      await second.close();
    }
  }, 120_000);

  it("fails naming the directory when it cannot be created", async () => {
    const blocker = join(dir, "a-file");
    writeFileSync(blocker, "not a folder");
    const dataDir = join(blocker, "db");
    await expect(initialiseDataDirectory(dataDir)).rejects.toThrow(
      `could not create the database in ${dataDir}`,
    );
  }, 60_000);
});
