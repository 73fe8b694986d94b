import { execFile } from "node:child_process";
import { closeSync, existsSync, fsyncSync, openSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

/**
 * PGlite creates a fresh data directory by running initdb in a second wasm instance, and the process keeps
 * what that cost: a fresh start held 650-700 MiB against ~200 for the same process started on an existing
 * directory (bench/store-memory.bench.ts). So a fresh directory is created in a short-lived child process,
 * and this process opens a directory that exists.
 */
const INITDB = `
const { PGlite } = await import(process.argv[1]);
const db = await PGlite.create(process.argv[2]);
await db.close();
`;

/** Creates the PGlite data directory `dataDir` when it has no database yet; a no-op otherwise. */
export async function initialiseDataDirectory(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return;
  const pglite = import.meta.resolve("@electric-sql/pglite");
  try {
    await promisify(execFile)(process.execPath, ["--input-type=module", "-e", INITDB, pglite, dataDir], {
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stderr = "" } = error as { stderr?: string };
    throw new Error(
      `could not create the database in ${dataDir}: ${stderr.trim().split("\n").at(-1) ?? error}`,
    );
  }
  // The child's PGlite wrote through the page cache: the new directory reaches the disk before it is used.
  syncTree(dataDir);
}

/** fsync every file and folder under `path` (folders last, so their entries name synced files). */
function syncTree(path: string): void {
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) syncTree(child);
    else if (entry.isFile()) syncPath(child);
  }
  syncPath(path);
}

function syncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
