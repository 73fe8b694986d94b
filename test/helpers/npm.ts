/**
 * npm as a user runs it, for the packaging tests (test/packaging/): installs that read npm's cache first and
 * ask the registry only for what the cache lacks, and skip (with the reason) where neither can serve them.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { scratchDir } from "./scratch.js";

export const run = promisify(execFile);

export interface Ran {
  readonly stdout: string;
  readonly stderr: string;
}

// The machine's own ~/.npmrc may hold a setting npm 11 no longer knows: that warning is about the machine,
// not the package, and is the only npm line let through.
export const MACHINE_NOISE = /^npm warn Unknown user config "[^"]+"\..*$/gm;
/**
 * Whether this Node is older than package.json's `engines` allows (`>=major.minor`): there npm rightly warns
 * EBADENGINE, for routerjobs itself and for dependencies that already dropped it (CI runs the tests on every
 * supported Node too, where every warning fails).
 */
export const BELOW_ENGINES = (() => {
  const { engines } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    engines: { node: string };
  };
  const [major = 0, minor = 0] = (engines.node.match(/^>=(\d+)(?:\.(\d+))?/) ?? []).slice(1).map(Number);
  const [nodeMajor = 0, nodeMinor = 0] = process.versions.node.split(".").map(Number);
  return nodeMajor < major || (nodeMajor === major && nodeMinor < minor);
})();

/** What npm printed, less the machine's noise and, below `engines`, its EBADENGINE warnings. */
export function npmWarnings(text: string): string {
  return text
    .replace(MACHINE_NOISE, "")
    .split("\n")
    .filter((line) => !(BELOW_ENGINES && line.startsWith("npm warn EBADENGINE")))
    .join("\n")
    .trim();
}

const NETWORK_ERRORS = /ENOTCACHED|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH/;

/**
 * npm as a user runs it: without the npm_config_* variables of the npm that started this test run (they make
 * npm warn about settings it was not given), reading the machine's npmrc files itself.
 */
export function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

export async function npm(args: readonly string[], cwd: string): Promise<Ran> {
  return run("npm", [...args], { cwd, maxBuffer: 16 * 1024 * 1024, env: { ...userEnv(), CI: "true" } });
}

/**
 * `npm pack` of the checkout (its built dist/) into a scratch folder, removed after the test file: the tarball's
 * path. --ignore-scripts: the global setup built dist/ from these sources; `prepare` would build it again and,
 * on the way, remove dist/bundle under the CLI that tests running beside this one start.
 */
export async function packTarball(): Promise<string> {
  const dir = scratchDir("rj-pack-");
  const { stdout } = await npm(
    ["pack", "--ignore-scripts", "--json", "--pack-destination", dir],
    join(import.meta.dirname, "..", ".."),
  );
  const [packed] = JSON.parse(stdout) as { filename: string }[];
  if (packed === undefined) throw new Error(`npm pack named no tarball: ${stdout}`);
  return join(dir, packed.filename);
}

/**
 * `npm <args>` (an install or `ci`) from npm's cache alone, else with the registry for what the cache lacks;
 * `check` sees what it printed. Where neither has the packages, the reason why, for the test to skip with.
 */
export async function npmInstall(
  args: readonly string[],
  cwd: string,
  check: (ran: Ran, what: string) => void = () => {},
): Promise<{ readonly skip?: string }> {
  try {
    check(await npm([...args, "--offline"], cwd), `npm ${args[0]} --offline`);
    return {};
  } catch {
    // Whatever failed offline is tried again with the registry: a package missing from the cache is not
    // always ENOTCACHED (a peer whose metadata is not cached fails the resolution, ERESOLVE), and a real
    // failure fails again there.
  }
  try {
    check(await npm([...args, "--prefer-offline"], cwd), `npm ${args[0]}`);
    return {};
  } catch (online) {
    const text = String((online as Ran).stderr ?? online);
    if (!NETWORK_ERRORS.test(text)) throw online;
    return {
      skip: `the packages are not in npm's cache and the registry cannot be reached (${text.match(NETWORK_ERRORS)?.[0]})`,
    };
  }
}

/** Skips the test with the reason printed; under CI=true a skip hides a missing part, so it fails instead. */
export function skipOrFail(reason: string, what: string, context: { skip: () => void }): void {
  if (process.env.CI === "true") throw new Error(`${reason}; CI=true requires ${what}`);
  console.warn(`skipping ${what}: ${reason}`);
  context.skip();
}
