import { writeFileSync } from "node:fs";
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
