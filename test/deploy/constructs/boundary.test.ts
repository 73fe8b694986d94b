import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "..", "..", "src");
const CDK_IMPORT =
  /from\s+["'](cdktf|cdktn|@cdktf\/[^"']+|@cdktn\/[^"']+|constructs)["']|import\(["']cdkt[fn]["']\)/;

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the cdktf boundary", () => {
  it("keeps cdktf imports inside src/deploy/constructs", () => {
    // GIVEN every source file of the package
    const offenders = sources(SRC)
      .map((path) => relative(SRC, path))
      .filter((path) => !path.startsWith("deploy/constructs/"))
      .filter((path) => CDK_IMPORT.test(readFileSync(join(SRC, path), "utf8")));
    // THEN none outside src/deploy/constructs (the job schema the CLI reads lives in src/contract) imports cdktf, its providers or constructs
    expect(offenders).toEqual([]);
  });
});
