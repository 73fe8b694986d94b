import { execFile } from "node:child_process";
import {
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { readTar, type TarEntry } from "../../platform/fs/tar.js";
import { userDirectory } from "../../platform/fs/user-dirs.js";

/**
 * How a fresh PGlite database comes to be. PGlite runs initdb in a second wasm instance, which takes far
 * longer than unpacking its output, for a `memory://` database and more so for a data directory, at every
 * first start of a service or a receiver, every demo and every test that starts one. What initdb writes
 * depends only on PGlite's version, so it is made once per user and version and kept as a tarball in the
 * user's cache folder (`$ROUTERJOBS_CACHE_DIR`, else `$XDG_CACHE_HOME/routerjobs`, else
 * `~/.cache/routerjobs`), and every fresh database is unpacked from it. A cache folder that cannot be used
 * costs only that time. The tarball is kept uncompressed: gunzipping it costs more CPU at every fresh
 * database than reading the larger file from the page cache (each test's service and receiver starts from
 * it).
 *
 * initdb runs in a short-lived child process: run in this one, its instance's memory stayed with the process
 * for good, far above what the process needs once it runs on an existing directory (figures:
 * docs/performance.md, bench/store-memory.bench.ts).
 */
const CREATE = `
const [pgliteUrl, template, dataDir] = process.argv.slice(1);
const { PGlite } = await import(pgliteUrl);
const fs = await import("node:fs");
if (template) {
  const fresh = await PGlite.create();
  const packed = Buffer.from(await (await fresh.dumpDataDir("none")).arrayBuffer());
  await fresh.close();
  // Written aside, on disk, then renamed: a reader sees a whole template or none.
  const aside = template + "." + process.pid + ".tmp";
  const fd = fs.openSync(aside, "w", 0o600);
  try { fs.writeFileSync(fd, packed); fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
  fs.renameSync(aside, template);
}
if (dataDir) await (await PGlite.create(dataDir)).close();
`;

/** Creates the PGlite data directory `dataDir` when it has no database yet; a no-op otherwise. */
export async function initialiseDataDirectory(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return;
  const fresh = await freshDatabaseTarball();
  if (fresh) unpack(fresh, dataDir);
  else {
    await runCreate("", dataDir, `could not create the database in ${dataDir}`);
    // The child's PGlite wrote through the page cache: the new directory reaches the disk before it is used.
    syncTree(dataDir);
  }
}

/**
 * What a fresh database starts from: initdb's output as an uncompressed tarball (what PGlite's `loadDataDir`
 * takes), or undefined when the user's cache folder cannot hold the template.
 */
export async function freshDatabaseTarball(): Promise<Buffer | undefined> {
  const template = usableTemplatePath();
  if (!template) return undefined;
  try {
    if (!existsSync(template)) await runCreate(template, "", "could not create the database template");
    return readFileSync(template);
  } catch {
    return undefined;
  }
}

/**
 * Writes the template's files into `dataDir`, on disk, and PG_VERSION last: PGlite takes a folder with
 * PG_VERSION for a database, so one cut short by a crash is unpacked again at the next start.
 */
function unpack(archive: Buffer, dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    let version: TarEntry | undefined;
    for (const entry of readTar(archive)) {
      const target = join(dataDir, ...entry.path.split("/"));
      if (entry.type === "directory") mkdirSync(target, { recursive: true, mode: entry.mode });
      else if (entry.path === "PG_VERSION") version = entry;
      else {
        mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
        writeFileSync(target, entry.data, { mode: entry.mode });
      }
    }
    if (!version) throw new Error("the template has no PG_VERSION");
    syncTree(dataDir);
    writeFileSync(join(dataDir, "PG_VERSION"), version.data, { mode: version.mode });
    syncPath(join(dataDir, "PG_VERSION"));
    syncPath(dataDir);
  } catch (error) {
    throw new Error(`could not create the database in ${dataDir}: ${(error as Error).message}`);
  }
}

async function runCreate(template: string, dataDir: string, failure: string): Promise<void> {
  const pglite = import.meta.resolve("@electric-sql/pglite");
  try {
    await promisify(execFile)(
      process.execPath,
      ["--input-type=module", "-e", CREATE, pglite, template, dataDir],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    const { stderr = "" } = error as { stderr?: string };
    throw new Error(`${failure}: ${stderr.trim().split("\n").at(-1) ?? error}`);
  }
}

/**
 * The template's path in the user's cache folder, named by PGlite's version; undefined when that folder cannot
 * be made, or when it or the template could be written by another user (whose template would become every new
 * database).
 */
function usableTemplatePath(): string | undefined {
  const folder = userDirectory("cache");
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (!ownedAndPrivate(folder)) return undefined;
    const template = join(folder, `pglite-${pgliteVersion()}-initdb.tar`);
    return !existsSync(template) || ownedAndPrivate(template) ? template : undefined;
  } catch {
    return undefined;
  }
}

function ownedAndPrivate(path: string): boolean {
  const stat = lstatSync(path);
  const ours = process.getuid === undefined || stat.uid === process.getuid();
  return ours && (stat.mode & 0o022) === 0 && (stat.isDirectory() || stat.isFile());
}

let version: string | undefined;
function pgliteVersion(): string {
  if (version === undefined) {
    const manifest = new URL("../package.json", import.meta.resolve("@electric-sql/pglite"));
    version = String((JSON.parse(readFileSync(manifest, "utf8")) as { version: unknown }).version);
  }
  return version;
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
