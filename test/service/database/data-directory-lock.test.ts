import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvironmentError } from "../../../src/errors.js";
import { lockDataDirectory } from "../../../src/service/database/data-directory-lock.js";
import { openDatabase } from "../../../src/service/database/database.js";

const LOCK_MODULE = join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "src",
  "service",
  "database",
  "data-directory-lock.ts",
);

/** Another process that locks `dir` and holds it until killed; resolves once it holds the lock. */
async function holdInChild(dir: string): Promise<ChildProcess> {
  const code = `const { lockDataDirectory } = await import(${JSON.stringify(LOCK_MODULE)});
    await lockDataDirectory(${JSON.stringify(dir)}); console.log("locked"); setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("locked")) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (exitCode) => reject(new Error(`child exited with ${exitCode}: ${output}`)));
  });
  return child;
}

describe("data directory lock: one process per PGlite directory", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "routerjobs-lock-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("a second open of an open directory fails naming the directory and the holder; after close it opens", async () => {
    const dir = join(root, "pglite");
    const db = await openDatabase({ location: dir });
    const second = openDatabase({ location: dir });
    await expect(second).rejects.toBeInstanceOf(EnvironmentError);
    await expect(second).rejects.toThrow(
      `data directory ${dir} is in use by another routerjobs process (pid ${process.pid})`,
    );
    // The refused open did not disturb the open one.
    expect((await db.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await db.close();
    expect(existsSync(`${dir}.lock`)).toBe(false);

    const again = await openDatabase({ location: dir });
    expect((await again.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await again.close();
  });

  it("a live process's lock fails at once with its pid; once that process is killed, the lock is taken over when stale", async () => {
    const dir = join(root, "held");
    const child = await holdInChild(dir);
    try {
      // At once: only the live-holder check names the pid; waiting for the lock to go stale would end without it.
      await expect(lockDataDirectory(dir)).rejects.toThrow(
        `data directory ${dir} is in use by another routerjobs process (pid ${child.pid})`,
      );
    } finally {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    // kill -9 leaves the lock behind; ageing it stands for the 10 s after which nobody refreshed it.
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${dir}.lock`, old, old);
    const release = await lockDataDirectory(dir);
    await release();
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });
});
