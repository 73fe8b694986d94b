/**
 * A CLI process under `strace`, for tests that check which system calls a command makes and in what order.
 * Without strace the caller skips with the printed reason, except in CI (a skip there hides a missing tool).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** Why strace cannot run here, or undefined when it can. Throws in CI, where it must. */
export function straceUnavailable(): string | undefined {
  const probe = spawnSync("strace", ["-f", "-o", "/dev/null", "true"], { encoding: "utf8" });
  if (probe.status === 0) return undefined;
  const reason = `strace cannot run (${probe.error?.message ?? probe.stderr.trim()}): apt-get install strace`;
  if (process.env.CI === "true") throw new Error(`${reason} (required in CI)`);
  return reason;
}

export interface TracedProcess {
  readonly child: ChildProcess;
  /** The first group of `pattern` once stdout has it; throws with stderr if the process exits first. */
  printed(pattern: RegExp): Promise<string>;
  /** SIGTERM, then the trace's lines once strace has written them all. */
  stop(): Promise<string[]>;
}

/**
 * `node bin/routerjobs.js ...args` under `strace -f -yy` tracing `syscalls` into `traceFile`: `-yy` names
 * each file descriptor's file or TCP connection, `-s 64` shows the start of what is written (an HTTP status line).
 */
export function traceCli(
  args: readonly string[],
  syscalls: readonly string[],
  traceFile: string,
): TracedProcess {
  const child = spawn(
    "strace",
    [
      ...["-f", "-qq", "-yy", "-s", "64", "-e", `trace=${syscalls.join(",")}`, "-o", traceFile],
      ...[process.execPath, join(ROOT, "bin", "routerjobs.js"), ...args],
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return {
    child,
    printed: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (match) {
            child.stdout?.off("data", check);
            resolve(match[1] as string);
          }
        };
        child.stdout?.on("data", check);
        child.once("close", () => reject(new Error(`exited before printing ${pattern}: ${stderr.trim()}`)));
        check();
      }),
    async stop() {
      // SIGTERM to strace would only detach it: the traced node process is the one to stop (a graceful stop,
      // so its last writes are traced too); strace exits with it.
      if (child.exitCode === null && child.pid !== undefined) {
        const traced = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8")
          .trim()
          .split(/\s+/);
        for (const pid of traced.filter(Boolean)) process.kill(Number(pid), "SIGTERM");
      }
      await exited;
      return readFileSync(traceFile, "utf8").split("\n");
    },
  };
}

/**
 * The trace reduced to what ordering checks need: "fsync" for an fsync/fdatasync of a file under `dataDir`
 * that succeeded, "2xx" for a write to a TCP connection that starts a plain HTTP 2xx response, "socket" for
 * any other write of more than 24 bytes to one (TLS records, encrypted: a 24-byte write is a TLS 1.3 alert such
 * as close_notify, never an answer).
 */
export function durabilityEvents(lines: readonly string[], dataDir: string): DurabilityEvent[] {
  const events: DurabilityEvent[] = [];
  for (const line of joinInterrupted(lines)) {
    if (/\b(fsync|fdatasync)\(\d+</.test(line) && line.includes(`<${dataDir}/`) && /= 0$/.test(line))
      events.push("fsync");
    else if (/\b(write|writev|sendto|sendmsg)\(\d+<TCP/.test(line)) {
      if (/HTTP\/1\.1 2\d\d /.test(line)) events.push("2xx");
      else if (Number(/= (\d+)$/.exec(line)?.[1] ?? 0) > 24) events.push("socket");
    }
  }
  return events;
}

export type DurabilityEvent = "fsync" | "2xx" | "socket";

/**
 * With `-f`, a call that another thread's call interrupts in the trace is written in two lines,
 * `PID fsync(12</dir/file> <unfinished ...>` and later `PID <... fsync resumed>) = 0` (the store's thread
 * fsyncs while the event loop writes). Each such call is joined into one line, placed where it is strictest
 * for the checks: an fsync where it returned (only then is the data on disk), a write where it began (the
 * answer may leave from then on).
 */
export function joinInterrupted(lines: readonly string[]): string[] {
  const joined: (string | undefined)[] = [];
  const open = new Map<string, { start: string; slot: number | undefined }>();
  for (const line of lines) {
    const unfinished = /^(\d+)\s+(.*) <unfinished \.\.\.>$/.exec(line);
    if (unfinished) {
      const [, pid = "", start = ""] = unfinished;
      const isFsync = /^(fsync|fdatasync)\(/.test(start);
      open.set(pid, { start: `${pid} ${start}`, slot: isFsync ? undefined : joined.push(undefined) - 1 });
      continue;
    }
    const resumed = /^(\d+)\s+<\.\.\. \w+ resumed>(.*)$/.exec(line);
    const begun = resumed && open.get(resumed[1] ?? "");
    if (resumed && begun) {
      open.delete(resumed[1] ?? "");
      const whole = `${begun.start}${resumed[2]}`;
      if (begun.slot === undefined) joined.push(whole);
      else joined[begun.slot] = whole;
      continue;
    }
    joined.push(line);
  }
  return joined.filter((line): line is string => line !== undefined);
}

/** The indexes of `answers` (positions in `events`) with no fsync since the answer before them. */
export function answersWithoutFsync(
  events: readonly DurabilityEvent[],
  answers: readonly number[],
): number[] {
  return answers.filter((at, nth) => {
    const since = nth === 0 ? 0 : (answers[nth - 1] as number);
    return !events.slice(since, at).includes("fsync");
  });
}
