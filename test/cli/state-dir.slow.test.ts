import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { scratchDir } from "../helpers/scratch.js";
import { TOKEN_A } from "../service/harness.js";

let scratch: string;
beforeAll(() => {
  scratch = scratchDir("rj-state-dir-");
});

describe("a state directory that cannot be written (issue 21, item 9)", () => {
  it("exits 5 naming the path and the reason, not 70 'internal error'", async () => {
    // A file where a folder should be: refused for root too, unlike a read-only mode.
    const blocker = join(scratch, "not-a-folder");
    writeFileSync(blocker, "");
    const stateDir = join(blocker, "state");
    const result = await runCli(["jobs", "a1000000-0000-4000-8000-000000000001"], {
      env: {
        ROUTERJOBS_URL: "https://127.0.0.1:9",
        ROUTERJOBS_TOKEN: TOKEN_A,
        ROUTERJOBS_STATE_DIR: stateDir,
      },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      /^routerjobs: cannot \w+ .*not-a-folder.*: a part of the path is not a folder \(ENOTDIR\)\n$/,
    );
    expect(result.stderr).not.toContain(TOKEN_A.split(":")[2]);
  });
});

/**
 * A read-only file system needs a mount: in a user and mount namespace of its own (`unshare -rm`), a tmpfs
 * mounted read-only over a scratch folder, seen by that process alone. Where the kernel allows no such
 * namespace, the test says so and skips.
 */
function underReadOnlyMount(folder: string, command: readonly string[]) {
  const script = 'mount -t tmpfs -o ro,size=1m tmpfs "$1" || exit 97; shift; exec "$@"';
  return spawnSync("unshare", ["-rm", "sh", "-c", script, "sh", folder, ...command], {
    cwd: join(import.meta.dirname, "..", ".."),
    encoding: "utf8",
    timeout: 120_000,
  });
}

describe("a fresh --data on a read-only file system (issue 45, finding 9)", () => {
  const folder = join(scratchDir("rj-read-only-"), "mounted");
  mkdirSync(folder);
  const probe = underReadOnlyMount(folder, ["true"]);
  const reason = probe.error
    ? `unshare is not available (${probe.error.message})`
    : probe.status !== 0
      ? `this kernel lets no test mount a read-only tmpfs (unshare -rm: exit ${probe.status}: ${probe.stderr.trim()})`
      : undefined;
  if (reason) console.warn(`${reason}: skipping the read-only --data test`);

  it.skipIf(reason !== undefined)("exits 5 naming EROFS, not 70 with the ENOENT of mkdir -p", () => {
    const result = underReadOnlyMount(folder, [
      process.execPath,
      "bin/routerjobs.js",
      "service",
      "--data",
      join(folder, "fresh", "data"),
      "--listen",
      "127.0.0.1:0",
    ]);
    expect(result.stderr).toBe(
      `routerjobs: cannot mkdir ${join(folder, "fresh")}: read-only file system (EROFS)\n`,
    );
    expect(result.status).toBe(5);
  });
});
