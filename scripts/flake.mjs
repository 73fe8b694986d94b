#!/usr/bin/env node
/**
 * Flake hunt (issue 19): runs the suite N times in a row (default 5) while a second copy of the suite runs
 * beside it the whole time, the way a CI runner shares its cores, and reports every test that failed in any
 * run of either, with its error's first line. Exit 1 when anything failed.
 *
 *   node scripts/flake.mjs [--runs N] [--no-load] [vitest arguments, e.g. test/service test/service/receiver]
 *
 * The second suite runs in a temporary copy of HEAD (its own dist/, since each vitest run rebuilds dist/),
 * sharing this node_modules. Both write JSON reports; nothing here reads the clock to decide anything.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { failureLines } from "./vitest-failure.cjs";

const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
let runs = 5;
let load = true;
const vitestArgs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--runs") runs = Number(args[++i]);
  else if (args[i] === "--no-load") load = false;
  else if (args[i] === "--help" || args[i] === "-h") {
    console.log("usage: node scripts/flake.mjs [--runs N] [--no-load] [vitest arguments]");
    process.exit(0);
  } else vitestArgs.push(args[i]);
}
if (!Number.isInteger(runs) || runs < 1) {
  console.error(
    `flake: --runs must be a whole number of at least 1 (got ${args[args.indexOf("--runs") + 1]})`,
  );
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), "routerjobs-flake-"));
/** Runs vitest once in `cwd`, writing its JSON report to `report`; resolves with the report's failures. */
function suite(cwd, report, label) {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [
        join(root, "node_modules", "vitest", "vitest.mjs"),
        "run",
        "--reporter=json",
        `--outputFile=${report}`,
        ...vitestArgs,
      ],
      { cwd, stdio: ["ignore", "ignore", "pipe"], detached: true },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    running.add(child);
    child.on("exit", (code) => {
      running.delete(child);
      done(summarize(report, label, code, stderr));
    });
  });
}

function summarize(report, label, code, stderr) {
  let parsed;
  try {
    parsed = JSON.parse(readFileSync(report, "utf8"));
  } catch {
    return {
      label,
      passed: 0,
      failed: [
        { name: "(no report)", error: `vitest exited ${code}: ${stderr.trim().split("\n").at(-1) ?? ""}` },
      ],
    };
  }
  const failed = [];
  for (const file of parsed.testResults ?? []) {
    const relative = file.name.replace(`${root}/`, "").replace(/^.*routerjobs-flake-[^/]+\/load\//, "");
    for (const test of file.assertionResults ?? []) {
      if (test.status === "failed")
        failed.push({
          name: `${relative} > ${test.fullName}`,
          error: firstLines(test.failureMessages?.[0]),
        });
    }
    // A file that failed outside its tests (a hook, an import) has no failed test to name.
    if (file.status === "failed" && !(file.assertionResults ?? []).some((test) => test.status === "failed"))
      failed.push({ name: relative, error: firstLines(file.message) });
  }
  return { label, passed: parsed.numPassedTests ?? 0, failed };
}

/** The error's first lines: its message and where it was thrown, enough to tell one flake from another. */
function firstLines(message) {
  return failureLines(message).slice(0, 6).join("\n    ");
}

/** Prints a suite run's count and its failures at once: a hunt stopped early still says what it saw. */
function printRun(result) {
  console.log(`${result.label}: ${result.passed} passed, ${result.failed.length} failed`);
  for (const failure of result.failed) console.log(`  - ${failure.name}\n    ${failure.error}`);
}

const running = new Set();
const stopAll = () => {
  for (const child of running) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
  // A test's own detached children (the demo's `router simulate` processes) lead groups of their own, so the
  // suite's group kill misses them: they are found by the scratch copy their command line runs from.
  for (const pid of processesMentioning(scratch)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
};

/** Other processes whose command line names `path` (Linux's /proc; none where there is no /proc). */
function processesMentioning(path) {
  if (!existsSync("/proc")) return [];
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(path);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}
process.on("SIGINT", () => {
  stopAll();
  rmSync(scratch, { recursive: true, force: true });
  process.exit(130);
});

const results = [];
let stopLoad = false;
let loadDone = Promise.resolve();
if (load) {
  const copy = join(scratch, "load");
  const archive = spawnSync("sh", [
    "-c",
    `mkdir -p "${copy}" && git -C "${root}" archive HEAD | tar -x -C "${copy}"`,
  ]);
  if (archive.status !== 0) {
    console.error(`flake: could not copy HEAD for the second suite: ${archive.stderr}`);
    process.exit(2);
  }
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
  // Tests read reference data beside the repository (../shared), as in CI's clone.
  if (existsSync(join(root, "..", "shared")))
    symlinkSync(join(root, "..", "shared"), join(scratch, "shared"));
  loadDone = (async () => {
    for (let n = 1; !stopLoad; n++) {
      const result = await suite(copy, join(scratch, `load-${n}.json`), `second suite, run ${n}`);
      // The run stopped at the end is not counted: part of it ran without the first suite beside it.
      if (stopLoad) break;
      results.push(result);
      printRun(result);
    }
  })();
}
for (let n = 1; n <= runs; n++) {
  const result = await suite(root, join(scratch, `run-${n}.json`), `run ${n} of ${runs}`);
  results.push(result);
  printRun(result);
}
stopLoad = true;
stopAll();
await loadDone;
rmSync(scratch, { recursive: true, force: true });

const failures = results.flatMap((result) =>
  result.failed.map((failure) => ({ ...failure, run: result.label })),
);
console.log(`\n${results.length} suite runs, ${failures.length} failures`);
for (const failure of failures) console.log(`- ${failure.run}: ${failure.name}\n    ${failure.error}`);
process.exit(failures.length > 0 ? 1 : 0);
