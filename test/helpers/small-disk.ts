import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real, small file system (tmpfs) that a test can fill up, to see what a full disk does. Mounting needs
 * root (CAP_SYS_ADMIN): without it the tests skip with the printed reason, except in CI, where they must run.
 */
export interface SmallDisk {
  /** Where the file system is mounted. */
  readonly path: string;
  /** Writes filler files until the disk refuses (ENOSPC); returns how many MiB it took. */
  fill(): number;
  /** Deletes the filler: the disk has space again. */
  free(): void;
  unmount(): void;
}

export type SmallDiskAvailability = { readonly available: true } | { readonly available: false };

/** Tries a mount once, so a suite knows before its tests whether it can run them. */
export function smallDiskAvailability(): SmallDiskAvailability {
  try {
    mountSmallDisk(1).unmount();
    return { available: true };
  } catch (error) {
    const reason = `cannot mount a tmpfs to fill (${(error as Error).message}); run as root`;
    if (process.env.CI === "true") throw new Error(`${reason} (required in CI)`);
    process.stdout.write(`skipping full-disk tests: ${reason}\n`);
    return { available: false };
  }
}

export function mountSmallDisk(sizeMiB: number): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), "rj-small-disk-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMiB}m`, "tmpfs", path], {
    encoding: "utf8",
  });
  if (mounted.status !== 0) {
    rmSync(path, { recursive: true, force: true });
    throw new Error((mounted.stderr || mounted.error?.message || "mount failed").trim());
  }
  const fillers: string[] = [];
  return {
    path,
    fill() {
      let mib = 0;
      try {
        for (;;) {
          const file = join(path, `filler-${fillers.length}`);
          fillers.push(file);
          writeFileSync(file, Buffer.alloc(1 << 20));
          mib++;
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
      // The last MiB did not fit whole: fill the crumbs too, so that every page the database asks for fails.
      for (const size of [1 << 16, 1 << 12, 1 << 9]) {
        try {
          const file = join(path, `filler-${fillers.length}`);
          fillers.push(file);
          writeFileSync(file, Buffer.alloc(size));
        } catch {
          // the disk is full at this size; try a smaller one
        }
      }
      return mib;
    },
    free() {
      for (const file of fillers.splice(0)) rmSync(file, { force: true });
    },
    unmount() {
      spawnSync("umount", ["-l", path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}
