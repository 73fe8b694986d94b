/**
 * A fresh checkout as a contributor gets it: the repository's files (those git tracks, and new ones it does
 * not ignore), without dist/ or node_modules, then `npm ci` as the README says. The CLI must answer there, and
 * where dist/ is missing (an install with scripts turned off) it must say what to run instead of a stack trace.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmInstall, npmWarnings, type Ran, run, skipOrFail, userEnv } from "../helpers/npm.js";

const ROOT = join(import.meta.dirname, "..", "..");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

/** The files a clone of this tree would hold: tracked or new and not ignored, still present. */
function copyCheckout(to: string): void {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  // A worktree's node_modules may be a symlink, which `node_modules/` in .gitignore (a folder) does not match.
  const files = listed.split("\0").filter((file) => file !== "" && !file.startsWith("node_modules"));
  for (const file of files) {
    if (!existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(join(ROOT, file), join(to, file));
  }
}

describe("a fresh checkout after npm ci", () => {
  let dir: string;
  let skip: string | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "rj-checkout-"));
    copyCheckout(dir);
    expect(existsSync(join(dir, "dist"))).toBe(false);
    ({ skip } = await npmInstall(["ci", "--no-audit", "--no-fund"], dir));
  }, 600_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("answers `npx routerjobs --version`: npm ci built dist/", { timeout: 120_000 }, async (context) => {
    if (skip !== undefined) return skipOrFail(skip, "npm ci in a fresh checkout", context);
    const version = await run("npx", ["--no-install", "routerjobs", "--version"], {
      cwd: dir,
      env: userEnv(),
    });
    expect(version.stdout.trim()).toBe(VERSION);
    expect(npmWarnings(version.stderr)).toBe("");
  });

  it("says to run `npm run build` where dist/ is missing, exit 5, no stack trace", {
    timeout: 120_000,
  }, async (context) => {
    if (skip !== undefined) return skipOrFail(skip, "npm ci in a fresh checkout", context);
    rmSync(join(dir, "dist"), { recursive: true, force: true });
    const failed = await run(process.execPath, [join(dir, "bin", "routerjobs.js"), "--version"], {
      cwd: dir,
    }).then(
      () => undefined,
      (error: Ran & { code: number }) => error,
    );
    expect(failed?.code).toBe(5);
    expect(failed?.stdout).toBe("");
    expect(failed?.stderr).toBe(
      `routerjobs is not built in ${dir}/: run \`npm run build\` there first (npm ci and npm install build it, unless scripts are turned off)\n`,
    );
  });
});
