/**
 * `routerjobs receiver` in a process of its own, as it runs in production (another process, often another
 * machine): a bench that keeps it in its own process would measure one event loop doing two servers' work.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { RECEIVER_FILES } from "../src/receiver/files.js";

export interface ReceiverProcess {
  readonly url: string;
  readonly notifyUrl: string;
  readonly readerToken: string;
  readonly ca: string;
  readonly pid: number;
  close(): Promise<void>;
}

const BIN = join(import.meta.dirname, "..", "bin", "routerjobs.js");

export async function startReceiverProcess(dataDir: string): Promise<ReceiverProcess> {
  const child = spawn(process.execPath, [BIN, "receiver", "--listen", "127.0.0.1:0", "--data", dataDir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    const url = await line(child, () => stdout, /^receiver listening on (\S+)/m);
    const notifyUrl = await line(child, () => stdout, /^notify_url: (\S+)$/m);
    const [readerToken, ca] = await Promise.all([
      readFile(join(dataDir, RECEIVER_FILES.readerToken), "utf8"),
      readFile(await line(child, () => stdout, /^CA certificate: (\S+)$/m), "utf8"),
    ]);
    return {
      url,
      notifyUrl,
      readerToken: readerToken.trim(),
      ca,
      pid: child.pid as number,
      async close() {
        child.kill("SIGTERM");
        await exited;
      },
    };
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`the receiver did not start (${(error as Error).message}): ${stderr.trim()}`);
  }
}

async function line(child: ChildProcess, output: () => string, pattern: RegExp): Promise<string> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const match = pattern.exec(output());
    if (match) return match[1] as string;
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("timed out");
}

/** Resident memory of a process, from /proc (Linux); undefined elsewhere. */
export async function rssMiB(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}
