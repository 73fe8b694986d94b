import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/service/database/database.js";
import { freshDatabaseTarball, initialiseDataDirectory } from "../../../src/service/database/pglite-init.js";
import { scratchDir } from "../../helpers/scratch.js";

let dir: string;
/**
 * One cache folder for this file, empty at its start: the first test sees the template made, the others use it
 * (making one is an initdb, seconds). A test about another folder sets its own.
 */
let cache: string;
beforeAll(() => {
  dir = scratchDir("routerjobs-pglite-init-");
  cache = mkdtempSync(join(dir, "cache-"));
});
beforeEach(() => {
  process.env.ROUTERJOBS_CACHE_DIR = cache;
});
afterEach(() => {
  delete process.env.ROUTERJOBS_CACHE_DIR;
});

/** The template's path: named by PGlite's version, which this test need not know. */
function templateIn(folder: string): string {
  const name = readdirSync(folder).find((file) => /^pglite-.+-initdb\.tar$/.test(file));
  return join(folder, name ?? "no template");
}

async function roundTrip(location: string): Promise<void> {
  const first = await openDatabase({ location });
  await first.query("CREATE TABLE kept (id int PRIMARY KEY)");
  await first.transaction(async (tx) => {
    await tx.query("INSERT INTO kept VALUES (1), (2)");
  });
  await first.close();
  // An existing directory is left alone (no second initdb over it).
  await initialiseDataDirectory(location);
  const second = await openDatabase({ location });
  try {
    expect((await second.query<{ id: number }>("SELECT id FROM kept ORDER BY id")).rows).toEqual([
      { id: 1 },
      { id: 2 },
    ]);
  } finally {
    await second.close();
  }
}

describe("a fresh PGlite database", () => {
  // Runs initdb and opens fresh databases several times: with a second suite on the two cores it took over
  // the default 120 s once. A deadline for a broken build, not a bound on its time.
  it("comes from initdb's output, made once per user into the cache folder and kept there", {
    timeout: 300_000,
  }, async () => {
    expect(readdirSync(cache)).toEqual([]);
    await roundTrip(join(dir, "first"));
    const template = templateIn(cache);
    const made = statSync(template);
    expect(made.mode & 0o777).toBe(0o600);
    expect(statSync(cache).mode & 0o077).toBe(0);
    await roundTrip(join(dir, "second"));
    expect(statSync(template).mtimeMs).toBe(made.mtimeMs);
    expect(statSync(template).ino).toBe(made.ino);
  });

  it("in memory starts from the same template", async () => {
    const db = await openDatabase({ location: "memory://" });
    try {
      expect((await db.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
    expect(existsSync(templateIn(cache))).toBe(true);
  });

  it("is unpacked again when a crash cut the last unpacking short (no PG_VERSION yet)", async () => {
    const dataDir = join(dir, "cut-short");
    await initialiseDataDirectory(dataDir);
    unlinkSync(join(dataDir, "PG_VERSION"));
    writeFileSync(join(dataDir, "global", "pg_control"), "half a file");
    await roundTrip(dataDir);
  });

  it("runs initdb itself when the cache folder could be written by others, and leaves that folder alone", async () => {
    const shared = join(dir, "shared-cache");
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    process.env.ROUTERJOBS_CACHE_DIR = shared;
    expect(await freshDatabaseTarball()).toBeUndefined();
    await roundTrip(join(dir, "without-cache"));
    expect(existsSync(templateIn(shared))).toBe(false);
  });

  it("runs initdb itself when the cache folder cannot be made", async () => {
    const blocker = join(dir, "cache-is-a-file");
    writeFileSync(blocker, "not a folder");
    process.env.ROUTERJOBS_CACHE_DIR = join(blocker, "routerjobs");
    await roundTrip(join(dir, "no-cache-folder"));
  });

  it("fails naming the directory when it cannot be created", async () => {
    const blocker = join(dir, "a-file");
    writeFileSync(blocker, "not a folder");
    const dataDir = join(blocker, "db");
    await expect(initialiseDataDirectory(dataDir)).rejects.toThrow(
      `could not create the database in ${dataDir}`,
    );
  });
});
