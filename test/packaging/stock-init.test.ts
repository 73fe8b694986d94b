/**
 * A project as `cdktn init --template=typescript` lays it out, untouched: its tsconfig (CommonJS, so
 * TypeScript resolves modules the `node10` way and reads no `exports` map), `main.ts` run by ts-node, and the
 * packed tarball installed beside cdktn. `routerjobs/constructs` must type-check and synthesize there: types
 * through `typesVersions`, the code through Node's `require` of an ES module (Node >= 22.12).
 *
 * The tsconfig and main.ts are cdktn-cli's own template files, read from the cdktn-cli that CI installs
 * (ROUTERJOBS_TEST_CDKTN_CLI); cdktn-cli and require(esm) need Node >= 22.19, so below that the test is not
 * declared. The install reads npm's cache first, then the registry (skipped with the reason without either,
 * failed under CI=true).
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BELOW_ENGINES, npm, npmInstall, run, skipOrFail, userEnv } from "../helpers/npm.js";

const ROOT = join(import.meta.dirname, "..", "..");
const ROUTER = "3f1c6a52-8b1e-4a57-9a64-1d2e3f4a5b6c";
const cdktnCli = process.env.ROUTERJOBS_TEST_CDKTN_CLI;

/** cdktn-cli's TypeScript template folder, beside the binary it installs. */
function templateOf(cli: string): string {
  let dir = dirname(realpathSync(cli));
  for (let up = 0; up < 5; up++, dir = dirname(dir)) {
    for (const candidate of [
      join(dir, "templates", "typescript"),
      join(dir, "bundle", "templates", "typescript"),
    ])
      if (existsSync(join(candidate, "tsconfig.json"))) return candidate;
  }
  throw new Error(`no templates/typescript near ${cli}`);
}

/** The template's main.ts with one RouterConfig where it says to define resources. */
const mainTs = (template: string) =>
  `import { RouterConfig, helpers } from "routerjobs/constructs";\n${template
    .replaceAll("{{ $base }}", "office")
    .replace(
      "// define resources here",
      `new RouterConfig(this, "edge-1", {
      routerId: "${ROUTER}",
      sections: [{ name: "identity", script: helpers.identity("edge-1") }],
    });`,
    )}`;

describe("typesVersions, for TypeScript's node10 resolution", () => {
  it("maps every subpath export to the .d.ts its exports entry names, and that file is built", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, { types: string }>;
      typesVersions: { "*": Record<string, string[]> };
    };
    const subpaths = Object.keys(pkg.exports).filter((key) => key !== ".");
    expect(subpaths.length).toBeGreaterThan(0);
    for (const subpath of subpaths) {
      const types = pkg.exports[subpath]?.types;
      expect(pkg.typesVersions["*"][subpath.slice(2)], subpath).toEqual([types]);
      expect(existsSync(join(ROOT, types ?? "")), `${types} (npm run build)`).toBe(true);
    }
  });
});

if (BELOW_ENGINES) {
  console.warn(
    `a stock cdktn init project not tried: it needs Node >= 22.19, this is ${process.versions.node}`,
  );
} else if (cdktnCli === undefined && process.env.CI !== "true") {
  console.warn(
    "a stock cdktn init project not tried: ROUTERJOBS_TEST_CDKTN_CLI does not name a cdktn-cli binary",
  );
} else {
  describe("a stock `cdktn init --template=typescript` project", () => {
    let packDir: string;
    let tarball: string;
    beforeAll(async () => {
      packDir = mkdtempSync(join(tmpdir(), "rj-pack-"));
      const { stdout } = await npm(
        ["pack", "--ignore-scripts", "--json", "--pack-destination", packDir],
        ROOT,
      );
      const [packed] = JSON.parse(stdout) as { filename: string }[];
      tarball = join(packDir, (packed as { filename: string }).filename);
    });
    afterAll(() => rmSync(packDir, { recursive: true, force: true }));

    it("type-checks and synthesizes with the constructs, its tsconfig and ts-node as they come", {
      timeout: 300_000,
    }, async (context) => {
      if (cdktnCli === undefined)
        throw new Error("CI=true on Node >= 22.19 requires ROUTERJOBS_TEST_CDKTN_CLI");
      const template = templateOf(cdktnCli);
      const dir = mkdtempSync(join(tmpdir(), "rj-stock-"));
      try {
        // GIVEN the template's files, and what its post-init hook installs, with routerjobs beside them
        writeFileSync(
          join(dir, "package.json"),
          JSON.stringify({ name: "office", version: "1.0.0", private: true }),
        );
        writeFileSync(join(dir, "tsconfig.json"), readFileSync(join(template, "tsconfig.json")));
        writeFileSync(join(dir, "main.ts"), mainTs(readFileSync(join(template, "main.ts"), "utf8")));
        const installed = await npmInstall(
          [
            "install",
            "--no-audit",
            "--no-fund",
            tarball,
            "cdktn@0.24.0",
            "constructs@>=10.6.0 <10.8.0",
            "typescript@5.9",
            "ts-node@10",
            "@types/node@22",
          ],
          dir,
        );
        if (installed.skip !== undefined) {
          skipOrFail(installed.skip, "the stock cdktn project's install", context);
          return;
        }
        // WHEN it is type-checked and run as cdktf.json's `app` runs it (`npx ts-node main.ts`)
        const bin = (name: string) => join(dir, "node_modules", ".bin", name);
        const checked = await run(bin("tsc"), ["--noEmit", "-p", "."], { cwd: dir, env: userEnv() }).catch(
          (error: { stdout: string }) => error,
        );
        expect(checked.stdout).toBe("");
        await run(bin("ts-node"), ["main.ts"], { cwd: dir, env: userEnv() });
        // THEN the stack holds the router's job
        const json = JSON.parse(
          readFileSync(join(dir, "cdktf.out", "stacks", "office", "cdk.tf.json"), "utf8"),
        );
        expect(Object.keys(json.resource.terraform_data)).toHaveLength(1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
