import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

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

/** Spawns the built CLI (`node bin/routerjobs.js`, see test/global-setup.ts) and collects what it printed. */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("ROUTERJOBS_")),
  );
  const child = spawn(process.execPath, ["bin/routerjobs.js", ...args], {
    cwd: ROOT,
    env: { ...env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
    timeout: options.timeoutMs ?? 20_000,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end(options.input ?? "");
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  return { code, stdout, stderr };
}
