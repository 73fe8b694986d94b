/**
 * The projects a new user starts from, with the packed tarball installed beside one framework:
 * - `cdktn init --template=typescript` and `cdktf init --template=typescript` as cdktn-cli 0.24 and cdktf-cli
 *   0.21 lay them out (the template's own package.json, tsconfig, main.ts and jest setup, with one RouterConfig
 *   added) and with what the template's post-init hook installs: `tsc`, `ts-node main.ts` (cdktf.json's `app`)
 *   and `jest` must pass. These projects are CommonJS with no `moduleResolution`, so TypeScript resolves the
 *   `node10` way and reads no `exports` map: the types come through `typesVersions`; ts-node and jest load the
 *   `require` build (dist/bundle/constructs.cjs), and jest's module system cannot load an ES module before
 *   Node 24.9 at all ("Must use import to load ES Module").
 * - an ES module project (`"type": "module"`) type-checked under `moduleResolution` `nodenext` with
 *   `skipLibCheck` off (TypeScript's default: the shipped `.d.ts` files are checked too, and nodenext is where
 *   an extensionless import inside one would fail) and under `bundler` with it on (as Vite's templates have
 *   it), synthesized by `tsx main.ts`;
 * - plain JavaScript, `require` (main.cjs) and `import` (main.mjs).
 * Each synthesizes the stack and the test reads the router's job from its cdk.tf.json.
 *
 * Cost (CI runs this on Node 22, 24 and 26): one `npm pack` for the file; the templates come from the CLIs'
 * packed tarballs (5 MB each) instead of installing the CLIs (220 MB and 420 MB); one install per framework
 * serves all of its cases: the template project, the ES module project and the scripts are sibling folders
 * under the install, which they resolve from the parent folder as Node and TypeScript do. The ES module
 * project's type-checks (pure tsc, 3 to 12 s each: its verdict does not depend on the Node that runs it) are
 * declared on Node 22 alone, the oldest supported, which CI runs first; ts-node, jest, tsx and node load the
 * package and run everywhere. With npm's cache warm, on 2 shared cores (2026-12-02): 81 s on Node 22 (23 s of
 * it the pack and the two installs), 51 to 70 s on Node 24 and 26. The cdktn project is the one
 * test/packaging/stock-init.test.ts had (its ts-node case is the first here).
 *
 * Below routerjobs' `engines` (Node 20, past its end of life, which the package does not support) nothing is
 * declared, with the reason printed. The installs read npm's cache first, then the registry (skipped with the
 * reason without either, failed under CI=true).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BELOW_ENGINES, npmInstall, packTarball, run, skipOrFail, userEnv } from "../helpers/npm.js";
import { scratchDir } from "../helpers/scratch.js";

const ROOT = join(import.meta.dirname, "..", "..");
const ROUTER = "3f1c6a52-8b1e-4a57-9a64-1d2e3f4a5b6c";
/** The one Node the ES module project's type-checks run on (header comment). */
const TYPE_CHECK_NODE = 22;
const typeChecksHere = Number(process.versions.node.split(".")[0]) === TYPE_CHECK_NODE;

type FrameworkName = "cdktn" | "cdktf";

interface Framework {
  readonly framework: FrameworkName;
  /** The CLI whose `templates/typescript` folder `init` copies. */
  readonly cli: string;
  /** What the template's `.hooks.sscaff.js` installs after `init`, pinned to the major it installs today. */
  readonly packages: readonly string[];
}

// The hooks' development packages, unpinned there: the majors they resolve to today (2026-12-02).
const TOOLS = ["@types/node@26", "jest@30", "@types/jest@30", "ts-jest@29", "ts-node@10"];

const FRAMEWORKS: readonly Framework[] = [
  {
    framework: "cdktn",
    cli: "cdktn-cli@0.24.0",
    packages: ["cdktn@0.24.0", "constructs@>=10.6.0 <10.8.0", "typescript@5.9", ...TOOLS],
  },
  {
    framework: "cdktf",
    cli: "cdktf-cli@0.21.0",
    // cdktf-cli 0.21's hook installs `typescript` unpinned, which is 7 today, beside ts-jest 29 (peer
    // `typescript >=4.3 <7`), which then fails before any test runs ("does not expose the JavaScript compiler
    // API required by ts-jest"; tsc and ts-node fail too): upstream's template is broken (archived, no fix
    // coming). 5.9 is what works there, so that a failure here is ours (docs/packaging.md).
    packages: ["cdktf@0.21.0", "constructs@10", "typescript@5.9", ...TOOLS],
  },
];

/** `text` with `marker` replaced; a template that lost its marker fails here, not as a puzzling synth. */
function replaceOnce(text: string, marker: string, by: string): string {
  if (!text.includes(marker)) throw new Error(`the template no longer has ${JSON.stringify(marker)}`);
  return text.replace(marker, by);
}

const routerConfig = (scope: string) => `new RouterConfig(${scope}, "edge-1", {
      routerId: "${ROUTER}",
      sections: [{ name: "identity", script: helpers.identity("edge-1") }],
    });`;

// A number is no router id: if the package's types were lost to `any`, the directive itself fails (TS2578).
const TYPES_ARE_READ = `// @ts-expect-error routerId is a string
export const notARouterId: RouterConfigProps["routerId"] = 42;
`;

/** The template's main.ts with one RouterConfig where it says to define resources. */
const mainTs = (template: string) =>
  `import { RouterConfig, type RouterConfigProps, helpers } from "routerjobs/constructs";\n${TYPES_ARE_READ}${replaceOnce(
    template.replaceAll("{{ $base }}", "office"),
    "// define resources here",
    routerConfig("this"),
  )}`;

/** The template's jest test with two tests of a RouterConfig in place of its `it.todo`. */
const mainTest = (template: string, framework: FrameworkName) =>
  `import { readFileSync } from "fs";
import { join } from "path";
import { DataResource, TerraformStack, Testing } from "${framework}";
import { RouterConfig, helpers } from "routerjobs/constructs";
${replaceOnce(
  template,
  'it.todo("should be tested");',
  `it("declares the router's job (synthScope)", () => {
    expect(
      Testing.synthScope((scope) => {
        ${routerConfig("scope")}
      }),
    ).toHaveResource(DataResource);
  });

  it("synthesizes the router's job into the stack (fullSynth)", () => {
    const stack = new TerraformStack(Testing.app(), "office");
    ${routerConfig("stack")}
    const outdir = Testing.fullSynth(stack);
    const json = JSON.parse(readFileSync(join(outdir, "stacks", "office", "cdk.tf.json"), "utf8"));
    const routers = Object.values(json.resource.terraform_data).map(
      (job: any) => JSON.parse(job.input.routerjobs).router_id,
    );
    expect(routers).toEqual(["${ROUTER}"]);
  });`,
)}`;

/** An app that synthesizes one stack with one RouterConfig into `outdir`, as TypeScript or plain JavaScript. */
function appSource(framework: FrameworkName, style: "ts" | "mjs" | "cjs", outdir: string): string {
  const imports =
    style === "cjs"
      ? `const { App, TerraformStack } = require("${framework}");
const { RouterConfig, helpers } = require("routerjobs/constructs");`
      : `import { App, TerraformStack } from "${framework}";
import { RouterConfig, helpers } from "routerjobs/constructs";`;
  return `${imports}
${style === "ts" ? `import type { RouterConfigProps } from "routerjobs/constructs";\n${TYPES_ARE_READ}` : ""}
const app = new App({ outdir: "${outdir}" });
const stack = new TerraformStack(app, "office");
${routerConfig("stack")}
app.synth();
`;
}

const esmTsconfig = (resolution: "nodenext" | "bundler") =>
  JSON.stringify({
    compilerOptions: {
      strict: true,
      target: "es2022",
      module: resolution === "nodenext" ? "nodenext" : "esnext",
      moduleResolution: resolution,
      noEmit: true,
      skipLibCheck: resolution === "bundler",
    },
    include: ["main.ts"],
  });

/** The router ids of the jobs in a synthesized stack. */
function routerJobs(stackDir: string): string[] {
  const json = JSON.parse(readFileSync(join(stackDir, "cdk.tf.json"), "utf8")) as {
    resource?: { terraform_data?: Record<string, { input: { routerjobs: string } }> };
  };
  return Object.values(json.resource?.terraform_data ?? {}).map(
    (job) => (JSON.parse(job.input.routerjobs) as { router_id: string }).router_id,
  );
}

/** The CLI's `templates/typescript` folder, from its packed tarball; or why it could not be fetched. */
async function fetchTemplate(cli: string): Promise<{ dir: string } | { skip: string }> {
  const dir = scratchDir("rj-template-");
  let filename = "";
  const { skip } = await npmInstall(["pack", "--json", "--pack-destination", dir, cli], dir, (ran) => {
    filename = (JSON.parse(ran.stdout) as { filename: string }[])[0]?.filename ?? "";
  });
  if (skip !== undefined) return { skip };
  await run("tar", ["-xzf", join(dir, filename), "-C", dir, "package/bundle/templates/typescript"]);
  return { dir: join(dir, "package", "bundle", "templates", "typescript") };
}

/**
 * A folder whose path the template's jest config does not ignore: cdktf-cli's lists `".d.ts"` and `".js"`,
 * regular expressions matched against the whole path, so a temporary folder named like `/tmp/rj-Xjs...`
 * would leave jest with no test to run.
 */
function projectRoot(template: string): string {
  const { testPathIgnorePatterns = [] } = createRequire(import.meta.url)(
    join(template, "jest.config.js"),
  ) as {
    testPathIgnorePatterns?: string[];
  };
  for (;;) {
    const dir = scratchDir("rj-templates-");
    const test = join(dir, "stock", "__tests__", "main-test.ts");
    if (!testPathIgnorePatterns.some((pattern) => new RegExp(pattern).test(test))) return dir;
  }
}

interface Project {
  /** The install, with the template project in stock/, the ES module project in esm/, scripts in js/. */
  readonly root: string;
  readonly skip?: string;
}

/** The template's project and its siblings, under one install of the tarball and the hook's packages. */
async function setUp({ framework, cli, packages }: Framework, tarball: string): Promise<Project> {
  const template = await fetchTemplate(cli);
  if ("skip" in template) return { root: "", skip: template.skip };
  const from = (file: string) => readFileSync(join(template.dir, file), "utf8");
  const root = projectRoot(template.dir);
  const write = async (file: string, text: string) => {
    await mkdir(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  await write("package.json", JSON.stringify({ name: "installs", version: "1.0.0", private: true }));
  await write("stock/package.json", from("package.json").replaceAll("{{ $base }}", "office"));
  for (const file of ["tsconfig.json", "jest.config.js", "setup.js"])
    await write(`stock/${file}`, from(file));
  await write("stock/main.ts", mainTs(from("main.ts")));
  await write("stock/__tests__/main-test.ts", mainTest(from("__tests__/main-test.ts"), framework));
  await write("esm/package.json", JSON.stringify({ name: "office-esm", private: true, type: "module" }));
  await write("esm/main.ts", appSource(framework, "ts", "cdktf.out"));
  for (const resolution of ["nodenext", "bundler"] as const)
    await write(`esm/tsconfig.${resolution}.json`, esmTsconfig(resolution));
  await write("js/main.cjs", appSource(framework, "cjs", "out-cjs"));
  await write("js/main.mjs", appSource(framework, "mjs", "out-mjs"));
  const { skip } = await npmInstall(
    ["install", "--no-audit", "--no-fund", tarball, ...packages, "tsx@4"],
    root,
  );
  return skip === undefined ? { root } : { root, skip };
}

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
    `the stock cdktn and cdktf projects, ES modules and plain JavaScript not tried: routerjobs needs Node >= 22.19, this is ${process.versions.node}`,
  );
} else {
  let tarball: string;
  beforeAll(async () => {
    tarball = await packTarball();
  });

  describe.each(FRAMEWORKS)("with $framework", (framework) => {
    let project: Project;
    beforeAll(async () => {
      project = await setUp(framework, tarball);
    });
    /** The project's folder `sub`, or undefined when the test was skipped for want of the packages. */
    const folder = (sub: string, context: { skip: () => void }): string | undefined => {
      if (project.skip === undefined) return join(project.root, sub);
      skipOrFail(project.skip, `the ${framework.framework} projects' install`, context);
      return undefined;
    };
    const bin = (name: string) => join(project.root, "node_modules", ".bin", name);

    it(`the stock \`${framework.framework} init\` project type-checks and synthesizes with its tsconfig and ts-node as they come`, async (context) => {
      const dir = folder("stock", context);
      if (dir === undefined) return;
      // GIVEN the template's files with one RouterConfig, and what its post-init hook installs
      // WHEN it is type-checked and run as cdktf.json's `app` runs it (`npx ts-node main.ts`)
      const checked = await run(bin("tsc"), ["--noEmit", "-p", "."], { cwd: dir, env: userEnv() }).catch(
        (error: { stdout: string }) => error,
      );
      expect(checked.stdout).toBe("");
      await run(bin("ts-node"), ["main.ts"], { cwd: dir, env: userEnv() });
      // THEN the stack holds the router's job
      expect(routerJobs(join(dir, "cdktf.out", "stacks", "office"))).toEqual([ROUTER]);
    });

    it(`the stock \`${framework.framework} init\` project's jest setup passes a test of a RouterConfig`, async (context) => {
      const dir = folder("stock", context);
      if (dir === undefined) return;
      // GIVEN the template's jest.config.js (ts-jest), setup.js and __tests__/main-test.ts with two tests
      // WHEN its `npm test` runs jest (the temporary folders of Testing.app and fullSynth go to the project's)
      const tmp = join(dir, "tmp");
      await mkdir(tmp, { recursive: true });
      const jest = await run(bin("jest"), [], { cwd: dir, env: { ...userEnv(), TMPDIR: tmp } }).catch(
        (error: { stdout: string; stderr: string }) => error,
      );
      // THEN both ran and passed (jest reports on stderr)
      expect(`${jest.stdout}\n${jest.stderr}`).toMatch(/Tests:\s+2 passed, 2 total/);
    });

    // Not declared elsewhere rather than skipped: CI counts a skipped test as a failure.
    if (typeChecksHere)
      it.for(["nodenext", "bundler"] as const)(
        "an ES module project type-checks under moduleResolution %s",
        async (resolution, context) => {
          const dir = folder("esm", context);
          if (dir === undefined) return;
          const checked = await run(bin("tsc"), ["-p", `tsconfig.${resolution}.json`], {
            cwd: dir,
            env: userEnv(),
          }).catch((error: { stdout: string }) => error);
          expect(checked.stdout).toBe("");
        },
      );
    else
      console.warn(
        `the ${framework.framework} ES module project's type-checks not run: tsc's verdict does not depend on the Node running it, and they run on Node ${TYPE_CHECK_NODE}`,
      );

    it("an ES module project synthesizes with `tsx main.ts`", async (context) => {
      const dir = folder("esm", context);
      if (dir === undefined) return;
      const synth = await run(bin("tsx"), ["main.ts"], { cwd: dir, env: userEnv() });
      expect(synth.stderr).toBe("");
      expect(routerJobs(join(dir, "cdktf.out", "stacks", "office"))).toEqual([ROUTER]);
    });

    it.for(["cjs", "mjs"] as const)("plain JavaScript synthesizes (main.%s)", async (style, context) => {
      const dir = folder("js", context);
      if (dir === undefined) return;
      const synth = await run(process.execPath, [`main.${style}`], { cwd: dir, env: userEnv() });
      expect(synth.stderr).toBe("");
      expect(routerJobs(join(dir, `out-${style}`, "stacks", "office"))).toEqual([ROUTER]);
    });
  });
}
