import { type ChildProcess, execFile, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { EnvironmentError } from "../../errors.js";

/** The first executable `binary` on PATH, or undefined. */
export function findOnPath(binary: string, path = process.env.PATH ?? ""): string | undefined {
  for (const folder of path.split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** terraform_data, which the constructs use, came with Terraform 1.4; OpenTofu has it from its first release. */
const MINIMUM = [1, 4] as const;

/** Terraform >= 1.4 or OpenTofu, or an EnvironmentError that says what to install. */
export async function locateTerraform(
  purpose = "the demo deploys with Terraform",
): Promise<{ binary: string; version: string }> {
  const binary = findOnPath("terraform") ?? findOnPath("tofu");
  const install = "install Terraform >= 1.4 (https://developer.hashicorp.com/terraform/install) or OpenTofu";
  if (!binary) throw new EnvironmentError(`${purpose}, and none is on PATH: ${install}`);
  const { stdout } = await promisify(execFile)(binary, ["version", "-json"]).catch((error: Error) => {
    throw new EnvironmentError(`${binary} version failed (${error.message}): ${install}`);
  });
  const version = String((JSON.parse(stdout) as { terraform_version?: string }).terraform_version ?? "");
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const isTofu = binary.endsWith("tofu");
  if (!isTofu && (major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1]))) {
    throw new EnvironmentError(
      `${binary} is Terraform ${version}, older than 1.4 (no terraform_data): ${install}`,
    );
  }
  return { binary, version };
}

/** Runs a command in its own process group so that Ctrl-C can stop it and everything it started. */
export function runGroup(
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    onLine?: (line: string) => void;
    /**
     * Its own process group (default), which `stopGroup` ends whole. `false` keeps it in the caller's group, so
     * that a signal to the caller's group (Ctrl-C in a terminal, a CI runner killing the job) reaches it too.
     */
    detached?: boolean;
  },
): { child: ChildProcess; done: Promise<{ code: number | null; output: string }> } {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: options.detached ?? true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: string) => {
    output += chunk;
  };
  // Each stream is split into lines on its own: Terraform writes diagnostics to stderr while provisioners'
  // lines reach stdout, and one shared remainder would splice a stderr chunk into the middle of a stdout line.
  const rests = [child.stdout, child.stderr].map((stream) =>
    stream === null ? () => "" : eachLine(stream, (line) => options.onLine?.(line), collect),
  );
  const done = new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      for (const rest of rests) if (rest() !== "") options.onLine?.(rest());
      resolve({ code, output });
    });
  });
  return { child, done };
}

/**
 * Calls `onLine` for each complete line of `stream` (UTF-8, a character split across chunks kept whole) and
 * `onChunk` for its text as it arrives; returns what is left after the last newline, for when the stream ends.
 */
export function eachLine(
  stream: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  onChunk: (chunk: string) => void = () => {},
): () => string {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    onChunk(chunk);
    const lines = (rest + chunk).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) onLine(line);
  });
  return () => rest;
}

/** Ends a process group started by `runGroup` (and its provisioners): TERM, then KILL if it lingers. */
export function stopGroup(child: ChildProcess): void {
  if (child.exitCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGTERM");
    setTimeout(() => {
      try {
        if (child.exitCode === null) process.kill(-(child.pid as number), "SIGKILL");
      } catch {}
    }, 3000).unref();
  } catch {}
}
