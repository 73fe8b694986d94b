import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");

/**
 * A private copy of the built CLI (bin, bundle, package.json) inside node_modules/.cache, where it still
 * resolves the project's packages: the bundle is rebuilt (deleted, then written) by every test run's global
 * setup, and another run in the same tree must not pull it away while terraform runs this one's provisioners.
 * `cli` is the command line that runs it; `remove()` deletes the copy.
 */
export function snapshotCli(prefix: string): { cli: string; remove(): void } {
  // A fresh `npm ci` has no node_modules/.cache yet.
  mkdirSync(join(ROOT, "node_modules", ".cache"), { recursive: true });
  const home = mkdtempSync(join(ROOT, "node_modules", ".cache", `${prefix}-`));
  for (const part of ["bin/routerjobs.js", "dist/bundle", "package.json"]) {
    if (!existsSync(join(ROOT, part))) throw new Error(`${part} is missing: the global setup builds it`);
    cpSync(join(ROOT, part), join(home, part), { recursive: true });
  }
  return {
    cli: `${process.execPath} ${join(home, "bin", "routerjobs.js")}`,
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}
