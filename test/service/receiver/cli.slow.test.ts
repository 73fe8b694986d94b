import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseListen } from "../../../src/cli/settings/receiver-flags.js";
import { type CliProcess, startCli } from "../../helpers/cli.js";
import { newJob, notificationFor, Sender, tempDir } from "./helpers.js";

/** Every receiver started, so that a failed test leaves none running. */
const started: CliProcess[] = [];

function cli(args: string[], env: Record<string, string> = {}): CliProcess {
  const run = startCli(args, { env });
  started.push(run);
  return run;
}

const notifyUrlOf = (run: CliProcess) => run.printed(/^notify_url: (\S+)$/m, "the receiver", 120_000);

describe("parseListen", () => {
  it("reads HOST:PORT and [IPv6]:PORT, and names the rule otherwise", () => {
    expect(parseListen("127.0.0.1:8443")).toEqual({ host: "127.0.0.1", port: 8443 });
    expect(parseListen("[::1]:0")).toEqual({ host: "::1", port: 0 });
    for (const bad of ["8443", "host:", "::1:80", "h:70000", "h:-1"]) {
      expect(() => parseListen(bad)).toThrow(/--listen must be HOST:PORT with a port from 0 to 65535/);
    }
  });
});

// The built CLI in a child process: real HTTPS, real PGlite, real signals.
describe("routerjobs receiver (CLI)", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(async () => {
    for (const run of started) run.child.kill("SIGKILL");
    await dir?.remove();
  });

  it("refuses bad flags with exit code 2 and one line naming the flag", async () => {
    const cases: [string[], RegExp][] = [
      [["receiver", "--listen", "nope", "--data", dir.path], /--listen must be HOST:PORT/],
      [["receiver", "--listen", "127.0.0.1:0"], /--data DIR is required/],
      [["receiver", "--data", dir.path, "--tls-cert", "c.pem"], /--tls-cert and --tls-key go together/],
      [["receiver", "--data", dir.path, "--signing-secret", "whsec_short"], /signing secret 1: .*whsec_/],
      [["receiver", "--data", dir.path, "--secret", "short"], /receiver secret must be 16 to 128/],
      [["receiver", "status", "--limit", "500", "--data", dir.path], /--limit must be a whole number/],
      [
        ["receiver", "--data", dir.path, "--log-level", "loud"],
        /--log-level must be one of fatal, error, warn/,
      ],
    ];
    await Promise.all(
      cases.map(async ([args, message]) => {
        const run = cli(args);
        expect(await run.exited).toBe(2);
        expect(run.output().stderr).toMatch(message);
      }),
    );
  });

  it("prints the notify_url, survives a SIGKILL without losing what it acknowledged, and stops on SIGTERM", async () => {
    const first = cli(["receiver", "--listen", "127.0.0.1:0", "--data", dir.path]);
    const notifyUrl = await notifyUrlOf(first);
    expect(first.output().stdout).toMatch(/reader token: .*reader-token/);
    const ca = await readFile(join(dir.path, "tls-ca.pem"), "utf8");
    expect((await stat(join(dir.path, "reader-token"))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir.path, "receiver-secret"))).mode & 0o777).toBe(0o600);

    const sender = new Sender(notifyUrl, ca);
    const jobs = [newJob(), newJob(), newJob()];
    for (const job of jobs) expect((await sender.post(notificationFor(job, "completed"))).status).toBe(200);
    await sender.close();
    first.child.kill("SIGKILL");
    await first.exited;

    const second = cli(["receiver", "--listen", "127.0.0.1:0", "--data", dir.path, "--log-level", "info"]);
    try {
      const secondUrl = await notifyUrlOf(second);
      expect(new URL(secondUrl).pathname).toBe(new URL(notifyUrl).pathname);
      const status = cli(["receiver", "status", "--data", dir.path, "--json"]);
      expect(await status.exited).toBe(0);
      const listed = JSON.parse(status.output().stdout) as { job_id: string; status: string }[];
      expect(listed.map((job) => job.job_id).sort()).toEqual(jobs.map((job) => job.job_id).sort());
      expect(listed.every((job) => job.status === "completed")).toBe(true);

      const table = cli(["receiver", "status", "--data", dir.path, "--router", jobs[0]?.router_id as string]);
      expect(await table.exited).toBe(0);
      expect(table.output().stdout).toMatch(/^ROUTER\s+SEQ\s+STATUS/);
      expect(table.output().stdout.trim().split("\n")).toHaveLength(2);

      // Its request log (--log-level info) names routes, never the notify path's secret
      const again = new Sender(secondUrl, ca);
      expect((await again.post(notificationFor(newJob(), "running"))).status).toBe(200);
      await again.close();
      const secret = new URL(notifyUrl).pathname.split("/").pop() as string;
      // The log reaches stdout after the answer reaches the sender (pino writes asynchronously): wait for its line.
      await second.printed(/("url":"\/notify\/:secret")/, "the notification's request in the log");
      // (the start-up banner prints notify_url on purpose: it is what the operator gives the service)
      const logLines = second
        .output()
        .stdout.split("\n")
        .filter((line) => line.startsWith("{"));
      expect(logLines.join("\n")).toContain('"url":"/notify/:secret"');
      expect(logLines.join("\n")).not.toContain(secret);

      second.child.kill("SIGTERM");
      expect(await second.exited).toBe(0);
      expect(second.output().stderr).toMatch(/receiver stopping/);
    } finally {
      // A failure above must not leave it holding the data directory for the test after this one.
      if (second.child.exitCode === null) await second.stop();
    }
  });

  // bin/routerjobs.js: the flags hold only when given at start; where Node can replace the process
  // (process.execve) it starts again with them, as the same process.
  it.runIf(process.platform === "linux")(
    "holds V8's young generation small and malloc lean from its start, as the process it was started as",
    async () => {
      // A setting the user made is theirs: it is kept, the others are added.
      const run = cli(["receiver", "--listen", "127.0.0.1:0", "--data", dir.path], { MALLOC_ARENA_MAX: "4" });
      await notifyUrlOf(run);
      const commandLine = (await readFile(`/proc/${run.child.pid}/cmdline`, "utf8")).split("\0").slice(0, -1);
      const replaceable = typeof (process as { execve?: unknown }).execve === "function";
      expect(commandLine.includes("--max-semi-space-size=1")).toBe(replaceable);
      expect(commandLine.includes("--semi-space-growth-factor=1")).toBe(replaceable);
      expect(commandLine.slice(-5)).toEqual(["receiver", "--listen", "127.0.0.1:0", "--data", dir.path]);
      // glibc's malloc settings (src/cli/startup/long-running.ts) come with the new start, read as the process begins.
      const environment = (await readFile(`/proc/${run.child.pid}/environ`, "utf8")).split("\0");
      expect(environment.filter((entry) => entry.startsWith("MALLOC_ARENA_MAX="))).toEqual([
        "MALLOC_ARENA_MAX=4",
      ]);
      expect(environment.includes("MALLOC_MMAP_THRESHOLD_=131072")).toBe(replaceable);
      run.child.kill("SIGTERM");
      expect(await run.exited).toBe(0);
    },
  );

  it("reports an unreachable receiver as a network failure, exit code 4", async () => {
    const run = cli(["receiver", "status", "--url", "https://127.0.0.1:1", "--data", dir.path], {
      ROUTERJOBS_RECEIVER_TOKEN: "wrong",
    });
    expect(await run.exited).toBe(4);
    expect(run.output().stderr).toMatch(/^routerjobs: cannot reach the receiver at https:\/\/127.0.0.1:1/);
  });
});
