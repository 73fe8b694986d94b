import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "./wait-for.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /** Added to a clean environment: the parent's ROUTERJOBS_* variables never leak into a test. */
  readonly env?: Record<string, string>;
  /** Written to standard input, then closed. */
  readonly input?: string;
  readonly timeoutMs?: number;
}

/** This process's environment without ROUTERJOBS_* variables. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ROUTERJOBS_")));
}

/** Spawns the built CLI (`node bin/routerjobs.js`, see test/global-setup.ts) and collects what it printed. */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawn(process.execPath, ["bin/routerjobs.js", ...args], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
    // A deadline for a hung CLI, not for a slow one: with a second suite on two cores, a `plan` or `token
    // create` took over 20 s, was killed, and its test failed on an empty output (vitest.config.ts).
    timeout: options.timeoutMs ?? 240_000,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A CLI that exits without reading its input (`--help`) closes the pipe: writing then fails with EPIPE, an
  // 'error' on stdin that would otherwise be unhandled and fail the whole run (seen once on Node 24). What
  // the test asserts is the exit code and the output.
  child.stdin.on("error", () => {});
  if (options.input === undefined) child.stdin.end();
  else child.stdin.end(options.input);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  return { code, stdout, stderr };
}

/** A long-running CLI process (a service, a receiver, a waiting apply) and what it printed so far. */
export interface CliProcess {
  readonly child: ChildProcess;
  readonly output: () => { stdout: string; stderr: string };
  readonly exited: Promise<number | null>;
  /** The first group of `pattern` once stdout has it; throws with the process's stderr if it exits first. */
  printed(pattern: RegExp, what: string, timeoutMs?: number): Promise<string>;
  /** SIGTERM (a graceful stop), then SIGKILL when it has not exited after 10 s. */
  stop(): Promise<void>;
}

/** How a long-running process is started: `env` is added to a clean environment, as for runCli. */
export interface StartOptions extends Pick<CliOptions, "env"> {
  /** Node's own options, before the script (V8 flags). */
  readonly nodeArgs?: readonly string[];
}

/** Starts the built CLI without waiting for it. */
export function startCli(args: readonly string[], options: StartOptions = {}): CliProcess {
  return startNodeScript(join(ROOT, "bin", "routerjobs.js"), args, options);
}

/** Starts a Node script (the CLI, or a bench's server on the built code) as startCli does. */
export function startNodeScript(
  script: string,
  args: readonly string[],
  options: StartOptions = {},
): CliProcess {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    output: () => ({ stdout, stderr }),
    exited,
    // 240 s: mostly a process's start, which passed 60 s with a second suite on the two cores.
    printed(pattern, what, timeoutMs = 240_000) {
      // stderr holds one error line at most; the CLI prints no token there.
      const said = () => stderr.trim() || "(nothing on stderr)";
      return waitFor(
        () => {
          const match = pattern.exec(stdout);
          if (match) return match[1] as string;
          if (child.exitCode !== null) throw new Error(`${what} did not start: ${said()}`);
          return undefined;
        },
        { what: `${what} to start`, timeoutMs, intervalMs: 50, detail: said },
      );
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
