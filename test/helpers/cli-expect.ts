/**
 * How the CLI must report a user's mistake, asserted in one place. Apart from cli.ts, which benches import
 * outside vitest.
 */
import { expect } from "vitest";
import type { CliResult } from "./cli.js";

/** The exit code and exactly one `routerjobs:` line on stderr: no stack trace, none of `secrets` anywhere. */
export function expectOneErrorLine(
  result: CliResult,
  code: number,
  message: string | RegExp,
  secrets: readonly string[] = [],
): void {
  expect(result.code).toBe(code);
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^routerjobs: /);
  expect(lines[0]).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  for (const secret of secrets) expect(result.stdout + result.stderr).not.toContain(secret);
}
