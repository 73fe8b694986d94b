/**
 * The published package as a user gets it: `npm pack` of the built tree, installed into an empty project next
 * to one framework (cdktn, or cdktf with its null provider), with nothing else. `npx routerjobs --version` and
 * a plain-JavaScript synth must work there: no dev dependency, no build step, no warning from npm or node.
 *
 * The install reads npm's cache first (`--offline`); when the cache lacks a package it asks the registry. With
 * neither, the test skips with the reason printed, and fails under CI=true.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  BELOW_ENGINES,
  MACHINE_NOISE,
  npmInstall,
  packTarball,
  type Ran,
  run,
  skipOrFail,
  userEnv,
} from "../helpers/npm.js";

const ROOT = join(import.meta.dirname, "..", "..");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const ROUTER = "3f1c6a52-8b1e-4a57-9a64-1d2e3f4a5b6c";

/** An empty project with the tarball and the framework installed; or why the install was impossible. */
async function installProject(
  tarball: string,
  framework: readonly string[],
): Promise<{ dir: string } | { skip: string }> {
  const dir = mkdtempSync(join(tmpdir(), "rj-pack-app-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const { skip } = await npmInstall(
    ["install", "--no-audit", "--no-fund", tarball, ...framework],
    dir,
    expectQuiet,
  );
  if (skip === undefined) return { dir };
  rmSync(dir, { recursive: true, force: true });
  return { skip };
}

/**
 * Below routerjobs' `engines` (Node 20, past its end of life) npm warns EBADENGINE for routerjobs and for
 * dependencies that require Node >= 22 (cookie 2, through light-my-request). That is reported, not failed; on
 * the supported Nodes (CI runs this file there too) every warning fails.
 */
const ENGINE_WARNINGS_EXPECTED = BELOW_ENGINES;

/**
 * npm 11 lists the lifecycle scripts that an install from outside the registry could run: for this tarball
 * (a `file:` install) that is routerjobs' own `prepare`, which builds a checkout (docs/packaging.md). npm does
 * not run it for a tarball (the install has no TypeScript to run it with, and succeeds), and for a package
 * from the registry it lists no `prepare` at all. That advisory alone is let through, and only while it names
 * routerjobs' prepare and nothing else.
 */
const OWN_PREPARE_ADVISORY = [
  "npm warn install-scripts 1 package has install scripts not yet covered by allowScripts:",
  `npm warn install-scripts   routerjobs@${VERSION} (prepare: npm run build)`,
  "npm warn install-scripts",
  "npm warn install-scripts Run `npm install-scripts ls` to review, or `npm install-scripts approve <pkg>` to allow.",
].join("\n");

function expectQuiet(ran: Ran, what: string): void {
  const lines = `${ran.stdout}\n${ran.stderr}`
    .replace(MACHINE_NOISE, "")
    .replace(OWN_PREPARE_ADVISORY, "")
    .split("\n");
  const engine = lines.filter((line) => line.startsWith("npm warn EBADENGINE"));
  if (ENGINE_WARNINGS_EXPECTED && engine.length > 0) {
    const packages = engine.map((line) => line.match(/package: '([^']+)'/)?.[1]).filter(Boolean);
    console.warn(
      `${what} on Node ${process.versions.node} (end of life): EBADENGINE for ${packages.join(", ")}`,
    );
  }
  const warnings = lines
    .filter((line) => !(ENGINE_WARNINGS_EXPECTED && line.startsWith("npm warn EBADENGINE")))
    .filter((line) => /warn|deprecated|ERESOLVE|peer dep/i.test(line));
  expect(warnings, `${what} printed warnings`).toEqual([]);
}

const APP = `import { App, TerraformStack } from "FRAMEWORK";
import { RouterConfig } from "routerjobs/constructs";
const app = new App({ outdir: "out" });
const stack = new TerraformStack(app, "office");
new RouterConfig(stack, "edge-1", {
  routerId: "${ROUTER}",
  sections: [{ name: "dns", script: "/ip dns set servers=1.1.1.1", resource: "RESOURCE" }],
});
app.synth();
`;

const CASES = [
  { framework: "cdktn", packages: ["cdktn@0.24.0"], resource: "terraform_data" },
  { framework: "cdktf", packages: ["cdktf@0.21.0", "@cdktf/provider-null@11"], resource: "null_resource" },
] as const;

describe("the packed tarball in an empty project", () => {
  let tarball: string;

  beforeAll(async () => {
    tarball = await packTarball();
  });

  it.for(CASES)(
    "installs beside $framework alone, and its CLI and constructs work there without a warning",
    { timeout: 300_000 },
    async ({ framework, packages, resource }, context) => {
      // GIVEN an empty project WHEN the tarball and the framework are installed
      const installed = await installProject(tarball, packages);
      if ("skip" in installed) {
        skipOrFail(installed.skip, `the tarball install with ${framework}`, context);
        return;
      }
      const { dir } = installed;
      try {
        // THEN routerjobs brought no framework copy of its own (they are peers)
        const other = framework === "cdktn" ? "cdktf" : "cdktn";
        expect(existsSync(join(dir, "node_modules", other))).toBe(false);
        expect(existsSync(join(dir, "node_modules", "routerjobs", "node_modules", framework))).toBe(false);
        // AND the CLI answers, quietly
        const version = await run("npx", ["--no-install", "routerjobs", "--version"], {
          cwd: dir,
          env: userEnv(),
        });
        expect(version.stdout.trim()).toBe(VERSION);
        expect(version.stderr.replace(MACHINE_NOISE, "").trim()).toBe("");
        // AND a plain JavaScript app synthesizes with the constructs, no build step, no warning
        writeFileSync(
          join(dir, "main.mjs"),
          APP.replace("FRAMEWORK", framework).replace("RESOURCE", resource),
        );
        const synth = await run(process.execPath, ["main.mjs"], { cwd: dir });
        expect(synth.stderr).toBe("");
        const json = JSON.parse(readFileSync(join(dir, "out", "stacks", "office", "cdk.tf.json"), "utf8"));
        expect(Object.keys(json.resource[resource])).toHaveLength(1);
        // AND the demo, which runs in a checkout, says how to get one instead of failing on a missing file
        const demo = await run("npx", ["--no-install", "routerjobs", "demo"], {
          cwd: dir,
          env: userEnv(),
        }).then(
          () => undefined,
          (error: Ran & { code: number }) => error,
        );
        expect(demo?.code).toBe(5);
        expect(demo?.stderr).toMatch(
          /routerjobs demo runs in a clone of the repository, .*\(missing here: tsx.*\): git clone https:\/\/\S+ routerjobs && cd routerjobs && npm ci && npm run demo\n/,
        );
        expect(demo?.stderr).not.toMatch(/\n\s+at /);
        // AND nothing only the service runs came with it: its server, driver and certificates are in the
        // bundle, and the embedded database is an optional peer
        for (const serviceOnly of ["@electric-sql/pglite", "fastify", "pg", "selfsigned"])
          expect(existsSync(join(dir, "node_modules", serviceOnly)), serviceOnly).toBe(false);
        // AND the service, started without it, says what to install, in one line, without a stack trace
        const service = await run(
          "npx",
          [
            "--no-install",
            "routerjobs",
            "service",
            "start",
            "--listen",
            "127.0.0.1:0",
            "--data",
            join(dir, "svc"),
          ],
          { cwd: dir, env: userEnv() },
        ).then(
          () => undefined,
          (error: Ran & { code: number }) => error,
        );
        expect(service?.code, service?.stderr).toBe(5);
        expect(service?.stderr).toMatch(
          /needs @electric-sql\/pglite, which is not installed: run `npm install @electric-sql\/pglite@\^0\.5`/,
        );
        expect(service?.stderr).not.toMatch(/\n\s+at /);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
