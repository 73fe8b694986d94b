/**
 * Builds dist/ once per test run, for the tests that spawn the real CLI (bin/routerjobs.js imports the bundle
 * in dist/bundle/), as `npm run build` does. Emit only (`--noCheck`) and incremental: type checking is
 * `npm run typecheck`'s job, and a no-change build then takes a couple of seconds. Quiet unless it fails.
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
  for (const step of [[tsc, ...args], ["scripts/bundle-cli.mjs"]]) {
    try {
      await promisify(execFile)(process.execPath, step, { maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
      throw new Error(`the build (${step.join(" ")}) failed:\n${stdout}${stderr}`);
    }
  }
}
