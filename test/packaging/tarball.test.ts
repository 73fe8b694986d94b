/**
 * The published package as a user gets it: `npm pack` of the built tree, installed into an empty project next
 * to one framework (cdktn, or cdktf with its null provider), with nothing else. `npx routerjobs --version` and
 * a plain-JavaScript synth must work there: no dev dependency, no build step, no warning from npm or node.
 *
 * The install reads npm's cache first (`--offline`); when the cache lacks a package it asks the registry. With
 * neither, the test skips with the reason printed, and fails under CI=true.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const ROUTER = "3f1c6a52-8b1e-4a57-9a64-1d2e3f4a5b6c";
// The machine's own ~/.npmrc may hold a setting npm 11 no longer knows: that warning is about the machine,
// not the package, and is the only npm line let through.
const MACHINE_NOISE = /^npm warn Unknown user config "[^"]+"\..*$/gm;
const NETWORK_ERRORS = /ENOTCACHED|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH/;

const run = promisify(execFile);

interface Ran {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * npm as a user runs it: without the npm_config_* variables of the npm that started this test run (they make
 * npm warn about settings it was not given), reading the machine's npmrc files itself.
 */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

async function npm(args: readonly string[], cwd: string): Promise<Ran> {
  return run("npm", [...args], { cwd, maxBuffer: 16 * 1024 * 1024, env: { ...userEnv(), CI: "true" } });
}

/** An empty project with the tarball and the framework installed; or why the install was impossible. */
async function installProject(
  tarball: string,
  framework: readonly string[],
): Promise<{ dir: string } | { skip: string }> {
  const dir = mkdtempSync(join(tmpdir(), "rj-pack-app-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const args = ["install", "--no-audit", "--no-fund", tarball, ...framework];
  try {
    await npm([...args, "--offline"], dir).then((ran) => expectQuiet(ran, "npm install --offline"));
    return { dir };
  } catch (offline) {
    if (!NETWORK_ERRORS.test(String((offline as Ran).stderr ?? offline))) throw offline;
  }
  try {
    expectQuiet(await npm([...args, "--prefer-offline"], dir), "npm install");
    return { dir };
  } catch (online) {
    const text = String((online as Ran).stderr ?? online);
    if (!NETWORK_ERRORS.test(text)) throw online;
    rmSync(dir, { recursive: true, force: true });
    return {
      skip: `the packages are not in npm's cache and the registry cannot be reached (${text.match(NETWORK_ERRORS)?.[0]})`,
    };
  }
}

/**
 * Node 20 is past its end of life, and some of fastify's dependencies already require Node >= 22 (cookie 2,
 * through light-my-request): on Node 20 npm warns EBADENGINE for them. That is reported, not failed; on
 * Node 22 and 24 (CI runs this file there too) every warning fails.
 */
const ENGINE_WARNINGS_EXPECTED = Number(process.versions.node.split(".")[0]) < 22;

function expectQuiet(ran: Ran, what: string): void {
  const lines = `${ran.stdout}\n${ran.stderr}`.replace(MACHINE_NOISE, "").split("\n");
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
  let packDir: string;
  let tarball: string;

  beforeAll(async () => {
    packDir = mkdtempSync(join(tmpdir(), "rj-pack-"));
    const { stdout } = await npm(["pack", "--json", "--pack-destination", packDir], ROOT);
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    tarball = join(packDir, (packed as { filename: string }).filename);
  });
  afterAll(() => rmSync(packDir, { recursive: true, force: true }));

  it.for(CASES)(
    "installs beside $framework alone, and its CLI and constructs work there without a warning",
    { timeout: 300_000 },
    async ({ framework, packages, resource }, context) => {
      // GIVEN an empty project WHEN the tarball and the framework are installed
      const installed = await installProject(tarball, packages);
      if ("skip" in installed) {
        if (process.env.CI === "true") throw new Error(`${installed.skip}; CI=true requires the install`);
        console.warn(`skipping the tarball install with ${framework}: ${installed.skip}`);
        context.skip();
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
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
