import { existsSync } from "node:fs";

/**
 * Debian's chromium for the browser tests (CI installs it with apt; playwright-core downloads no browser).
 * Without it the tests skip with the printed reason, except in CI, where a missing browser is a failure.
 */
export function chromiumPath(): string | undefined {
  const path = process.env.ROUTERJOBS_CHROMIUM ?? "/usr/bin/chromium";
  if (existsSync(path)) return path;
  const reason = `no Chromium at ${path}: apt-get install chromium, or set ROUTERJOBS_CHROMIUM`;
  if (process.env.CI === "true") throw new Error(`${reason} (required in CI)`);
  process.stdout.write(`skipping browser tests: ${reason}\n`);
  return undefined;
}
