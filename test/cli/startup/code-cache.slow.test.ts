/**
 * `routerjobs apply`'s code cache (src/cli/startup/code-cache.ts): a CommonJS bundle run with V8's code for it kept on
 * disk. In this process on small bundles of its own, then through the built CLI: the first apply writes the
 * cache, the next one runs from it.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runWithCodeCache } from "../../../src/cli/startup/code-cache.js";
import { runCli } from "../../helpers/cli.js";
import { declareJob } from "../../helpers/declared-job.js";
import { scratchDir } from "../../helpers/scratch.js";
import {
  ROUTER_A,
  startTestService,
  type TestService,
  TOKEN_A,
  writeServiceCa,
} from "../../service/harness.js";

const CODE_CACHE_MODULE = fileURLToPath(new URL("../../../dist/cli/startup/code-cache.js", import.meta.url));
const ENV_NAMES = ["NODE_COMPILE_CACHE", "NODE_DISABLE_COMPILE_CACHE"] as const;
const USER = process.getuid?.();
const FOLDER_NAME = USER === undefined ? "routerjobs-code-cache" : `routerjobs-code-cache-${USER}`;

let scratch: string;
let round = 0;
let cacheRoot: string;
let saved: Partial<Record<(typeof ENV_NAMES)[number], string>>;

beforeAll(() => {
  scratch = scratchDir("rj-code-cache-");
});

beforeEach(() => {
  saved = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));
  round += 1;
  cacheRoot = join(scratch, `root-${round}`);
  mkdirSync(cacheRoot);
  process.env.NODE_COMPILE_CACHE = cacheRoot;
  delete process.env.NODE_DISABLE_COMPILE_CACHE;
});

afterEach(() => {
  for (const name of ENV_NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** A bundle as esbuild writes one: CommonJS, a function or two, a throw on a known line. */
function bundle(name: string, answer: number): { file: string; sha256: string } {
  const source = [
    '"use strict";',
    `function answer() { return ${answer}; }`,
    'function fail() { throw new Error("failed on line 3"); }',
    "module.exports = { answer, fail, dir: __dirname, file: __filename, hasRequire: typeof require, thisIsExports: this === exports };",
    "",
  ].join("\n");
  const file = join(scratch, `${name}-${round}.cjs`);
  writeFileSync(file, source);
  return { file, sha256: createHash("sha256").update(source).digest("hex") };
}

interface Exports {
  answer(): number;
  fail(): never;
  dir: string;
  file: string;
  hasRequire: string;
  thisIsExports: boolean;
}

/**
 * Runs `bundle` in a Node process of its own through the built code-cache.js and saves its cache: V8 keeps
 * what it compiled in the process, and a second compile of the same source there takes that, whatever the
 * cache on disk holds, so whether a cache is taken is a question for a new process.
 */
function runApart(file: string, sha256: string): { cache: string; answer: number } {
  const script = `const { runWithCodeCache } = await import(${JSON.stringify(CODE_CACHE_MODULE)});
const run = runWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(sha256)});
run.save();
console.log(JSON.stringify({ cache: run.cache, answer: run.exports.answer() }));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env },
    encoding: "utf8",
  });
  return JSON.parse(out) as { cache: string; answer: number };
}

const cacheFolder = () => join(cacheRoot, FOLDER_NAME);
const cacheFiles = () => (existsSync(cacheFolder()) ? readdirSync(cacheFolder()) : []);

describe("a CommonJS bundle run with its code cached", () => {
  it("runs the bundle as Node's CommonJS loader would, with the file's own line numbers", () => {
    const { file, sha256 } = bundle("plain", 42);
    const run = runWithCodeCache(file, sha256);
    const exports = run.exports as Exports;
    expect(exports.answer()).toBe(42);
    expect(exports.file).toBe(file);
    expect(exports.dir).toBe(scratch);
    expect(exports.hasRequire).toBe("function");
    expect(exports.thisIsExports).toBe(true);
    expect(() => exports.fail()).toThrow("failed on line 3");
    try {
      exports.fail();
    } catch (error) {
      expect((error as Error).stack).toContain(`${file}:3:`);
    }
  });

  it("writes the cache after a run in a folder only this user may use, and the next process takes it", () => {
    const { file, sha256 } = bundle("cached", 7);
    expect(runApart(file, sha256)).toEqual({ cache: "none", answer: 7 });
    const [name = ""] = cacheFiles();
    expect(name).toBe(`${sha256}-${process.version}-${process.arch}.v8cache`);
    expect(statSync(cacheFolder()).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheFolder(), name)).mode & 0o777).toBe(0o600);
    const written = statSync(join(cacheFolder(), name)).mtimeMs;

    expect(runApart(file, sha256)).toEqual({ cache: "accepted", answer: 7 });
    // Taken, so not written again.
    expect(statSync(join(cacheFolder(), name)).mtimeMs).toBe(written);
  });

  it("reads no cache of another bundle of the same length, and removes it once the new one is written", () => {
    // GIVEN the cache of a bundle that differs from the next one in one digit (V8 checks only the length)
    const old = bundle("release", 1);
    expect(runApart(old.file, old.sha256).cache).toBe("none");
    const next = bundle("release", 2);
    expect(readFileSync(next.file).length).toBe(readFileSync(old.file).length);
    // WHEN the new bundle runs, THEN it found no cache of its own and ran its own code
    expect(runApart(next.file, next.sha256)).toEqual({ cache: "none", answer: 2 });
    // AND its cache replaced the old one
    expect(cacheFiles()).toEqual([`${next.sha256}-${process.version}-${process.arch}.v8cache`]);
  });

  it("removes the temporary files of processes killed before their rename, not those of running ones", () => {
    // GIVEN the temporaries of a process that is gone (pid 2^22 + 1: above Linux's largest pid) and of this one
    const { file, sha256 } = bundle("leftovers", 9);
    mkdirSync(cacheFolder(), { mode: 0o700 });
    const ours = `${sha256}-${process.version}-${process.arch}.v8cache`;
    const gone = `${ours}.4194305.tmp`;
    const running = `${ours}.${process.pid}.tmp`;
    for (const name of [gone, running]) writeFileSync(join(cacheFolder(), name), "partial");
    // WHEN a process writes its cache
    expect(runApart(file, sha256).cache).toBe("none");
    // THEN the dead process's temporary is gone, the running one's kept
    expect(cacheFiles().sort()).toEqual([ours, running].sort());
  });

  it("runs without a cache V8 refuses (cut short), and writes it again", () => {
    const { file, sha256 } = bundle("damaged", 5);
    runApart(file, sha256);
    const [name = ""] = cacheFiles();
    const path = join(cacheFolder(), name);
    const data = readFileSync(path);
    writeFileSync(path, data.subarray(0, Math.floor(data.length / 2)));

    expect(runApart(file, sha256)).toEqual({ cache: "rejected", answer: 5 });
    expect(runApart(file, sha256)).toEqual({ cache: "accepted", answer: 5 });
  });

  it("uses no folder that others may write to, or that is a link, and writes nothing there", () => {
    const { file, sha256 } = bundle("shared", 3);
    mkdirSync(cacheFolder());
    chmodSync(cacheFolder(), 0o777);
    const run = runWithCodeCache(file, sha256);
    expect(run.cache).toBe("off");
    expect((run.exports as Exports).answer()).toBe(3);
    run.save();
    expect(cacheFiles()).toEqual([]);

    round += 1;
    cacheRoot = join(scratch, `root-${round}`);
    mkdirSync(cacheRoot);
    process.env.NODE_COMPILE_CACHE = cacheRoot;
    const elsewhere = join(scratch, `elsewhere-${round}`);
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, cacheFolder());
    const linked = runWithCodeCache(file, sha256);
    expect(linked.cache).toBe("off");
    linked.save();
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("is off with NODE_DISABLE_COMPILE_CACHE=1, as Node's own cache is", () => {
    process.env.NODE_DISABLE_COMPILE_CACHE = "1";
    const { file, sha256 } = bundle("disabled", 9);
    const run = runWithCodeCache(file, sha256);
    expect(run.cache).toBe("off");
    run.save();
    expect(existsSync(cacheFolder())).toBe(false);
  });
});

describe("routerjobs apply with its code cache", () => {
  let svc: TestService;
  let caFile: string;
  beforeAll(async () => {
    svc = await startTestService({ rateLimit: { count: 10_000, windowMs: 1000 } });
    caFile = writeServiceCa(svc, scratch);
  });
  afterAll(async () => svc?.close());

  function apply(resource: string, env: Record<string, string>) {
    return runCli(["apply"], {
      env: {
        ROUTERJOBS_URL: svc.url,
        ROUTERJOBS_CA_FILE: caFile,
        ROUTERJOBS_RATE_LIMIT: "1000/1s",
        ROUTERJOBS_STATE_DIR: join(scratch, `state-${resource.replaceAll("/", "-")}`),
        ROUTERJOBS_JOB: JSON.stringify(declareJob(ROUTER_A, resource)),
        NODE_COMPILE_CACHE: cacheRoot,
        NODE_DEBUG: "routerjobs_code_cache",
        ...env,
      },
      timeoutMs: 60_000,
    });
  }

  it("writes nothing after a failed apply, writes after the first that succeeds, and the next runs from it", async () => {
    // GIVEN an apply that fails (a token the service does not know)
    const failed = await apply("cache/failed", { ROUTERJOBS_TOKEN: "ak_live_unknown" });
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/cache none for .*apply-body\.cjs/);
    expect(cacheFiles()).toEqual([]);
    // WHEN one succeeds, and then another runs
    const first = await apply("cache/first", { ROUTERJOBS_TOKEN: TOKEN_A });
    const second = await apply("cache/second", { ROUTERJOBS_TOKEN: TOKEN_A });
    // THEN the first wrote the cache and the second ran from it; both completed
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/cache written to /);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/cache accepted for .*apply-body\.cjs/);
    expect(second.stderr).not.toMatch(/cache written/);
    expect(second.stdout).toContain("routerjobs: cache/second: completed");
    expect(cacheFiles()).toHaveLength(1);
    // AND the cache holds code, not what the run read: no token
    const [name = ""] = cacheFiles();
    expect(readFileSync(join(cacheFolder(), name)).includes(TOKEN_A)).toBe(false);
    expect(`${first.stderr}${second.stderr}`).not.toContain(TOKEN_A);
  });
});
