/**
 * Temporary directories of a test file, removed once its tests are done: test/scratch-setup.ts, which vitest
 * runs before every test file, removes them after the file's last hook. A test that makes a folder in the
 * temporary directory and forgets it leaves one behind on every run (thousands on a CI runner or a flake hunt).
 *
 * Make them while tests run (in a test, a hook, or a helper either calls), not as the file is collected: a
 * file whose tests are all filtered out (`-t`) runs no hooks, so a folder made at its top level would stay.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = new Set<string>();

/** A fresh `<tmpdir>/<prefix>XXXXXX`, removed after the test file. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/**
 * cdktf's (or cdktn's) `Testing.app()` with its outdir a scratch directory: without an outdir, each call makes a
 * `cdktf.outdir.*` folder in the temporary directory that nothing removes, though `Testing.synth` writes nothing
 * there.
 */
export function testingApp<App>(testing: { app(options: { outdir: string }): App }): App {
  return testing.app({ outdir: scratchDir("cdktf.outdir.") });
}

/** Removes every scratch directory made so far: after each test file, and those are run one at a time. */
export function removeScratchDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.clear();
}
