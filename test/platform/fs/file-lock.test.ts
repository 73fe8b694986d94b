import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOCK_STALE_MS, tryHoldLock, tryLockSync, withFileLock } from "../../../src/platform/fs/file-lock.js";
import { waitFor } from "../../helpers/wait-for.js";

describe("file lock", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-lock-"));
    file = join(dir, "state.json");
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it("is held by one taker at a time and free again once released", () => {
    const release = tryLockSync(file);
    expect(release).toBeTypeOf("function");
    expect(tryLockSync(file)).toBeUndefined();
    release?.();
    const again = tryLockSync(file);
    expect(again).toBeTypeOf("function");
    again?.();
  });

  it("held long, keeps its lock fresh; once another process took it over, says so and leaves theirs on release", async () => {
    let lost: Error | undefined;
    const release = tryHoldLock(file, 400, (error) => {
      lost = error;
    });
    expect(release).toBeTypeOf("function");
    expect(tryHoldLock(file, 400, () => {})).toBeUndefined();
    // WHEN another process takes it over (its time changes behind the holder's back)
    const past = new Date(Date.now() - 60_000);
    await waitFor(
      async () => {
        if (lost) return true;
        await utimes(`${file}.lock`, past, past);
        return undefined;
      },
      { what: "the holder to hear that its lock was taken over", intervalMs: 50 },
    );
    expect(lost?.message).toMatch(/taken over by another process/);
    // THEN releasing it later leaves the new holder's lock in place
    release?.();
    await expect(stat(`${file}.lock`)).resolves.toBeDefined();
  });

  it("takes over a lock untouched for the stale time (its holder died), a file or an older version's folder", async () => {
    const old = new Date(Date.now() - LOCK_STALE_MS - 1000);
    await writeFile(`${file}.lock`, "");
    await utimes(`${file}.lock`, old, old);
    const fromFile = tryLockSync(file);
    expect(fromFile).toBeTypeOf("function");
    fromFile?.();
    // proper-lockfile, which older routerjobs versions used, made the lock a directory.
    await mkdir(`${file}.lock`);
    expect(tryLockSync(file)).toBeUndefined();
    await utimes(`${file}.lock`, old, old);
    const fromFolder = tryLockSync(file);
    expect(fromFolder).toBeTypeOf("function");
    fromFolder?.();
  });

  it("throws the caller's error when the lock stays held past the deadline", async () => {
    const release = tryLockSync(file);
    await expect(
      withFileLock(
        file,
        Date.now() + 50,
        () => new Error("still locked"),
        async () => "ran",
      ),
    ).rejects.toThrow("still locked");
    release?.();
    await expect(
      withFileLock(
        file,
        Date.now() + 50,
        () => new Error("x"),
        async () => "ran",
      ),
    ).resolves.toBe("ran");
    await expect(stat(`${file}.lock`)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("serialises read-modify-writes of four processes: no increment is lost", async () => {
    await writeFile(file, "0");
    const worker = `
      import { readFileSync, writeFileSync } from "node:fs";
      import { withFileLock } from ${JSON.stringify(new URL("../../../src/platform/fs/file-lock.ts", import.meta.url).pathname)};
      for (let i = 0; i < 50; i++) {
        await withFileLock(process.argv[1], Date.now() + 20000, () => new Error("timeout"), async () => {
          const value = Number(readFileSync(process.argv[1], "utf8"));
          await new Promise((resolve) => setImmediate(resolve));
          writeFileSync(process.argv[1], String(value + 1));
        });
      }`;
    const runs = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", worker, file], {
        stdio: ["ignore", "ignore", "inherit"],
      });
      return new Promise<number | null>((resolve) => child.on("close", resolve));
    });
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0]);
    expect(await readFile(file, "utf8")).toBe("200");
  });
});
