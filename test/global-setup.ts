/**
 * Builds dist/ once per test run, for the tests that spawn the real CLI (bin/routerjobs.js imports dist/).
 * Emit only (`--noCheck`) and incremental: type checking is `npm run typecheck`'s job, and a no-change build
 * then takes a couple of seconds. Quiet unless the build fails.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { promisify } from "node:util";

export default async function setup(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const args = [
    "-p",
    "tsconfig.build.json",
    "--noCheck",
    "--incremental",
    "--tsBuildInfoFile",
    "dist/.tsbuildinfo",
    "--pretty",
    "false",
  ];
  try {
    await promisify(execFile)(process.execPath, [tsc, ...args], { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`the build (tsc ${args.join(" ")}) failed:\n${stdout}${stderr}`);
  }
}
