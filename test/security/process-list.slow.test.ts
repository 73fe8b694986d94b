/**
 * The token in the process list: `routerjobs apply`, as a Terraform provisioner runs it, waits for a job on an
 * offline router while the test reads its command line the way any user of the machine can (/proc, Linux).
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApplyJob } from "../../src/contract/apply-job.js";
import type { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { declareJob } from "../helpers/declared-job.js";
import { waitFor } from "../helpers/wait-for.js";
import { ROUTER_A2, startTestService, type TestService, TOKEN_A } from "../service/harness.js";

const ROOT = join(import.meta.dirname, "..", "..");
const SECRET = TOKEN_A.split(":")[2] as string;

describe.skipIf(process.platform !== "linux")("the token and the process list", () => {
  let service: TestService;
  let dir: string;

  beforeAll(async () => {
    service = await startTestService();
    dir = await mkdtemp(join(tmpdir(), "rj-ps-"));
  });
  afterAll(async () => {
    (service?.backend as SimulatedBackend | undefined)?.setOnline(ROUTER_A2, true);
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("never appears in the command line of a waiting apply, nor in its output", async () => {
    // A first call attaches the router at the service; then its tunnel goes down.
    await service.call("POST", `/api/synchronous/${ROUTER_A2}`, {
      body: { command: "/system/identity/print" },
    });
    (service.backend as SimulatedBackend).setOnline(ROUTER_A2, false);
    const caFile = join(dir, "ca.pem");
    await writeFile(caFile, service.service.ca as string);
    const job: ApplyJob = declareJob(ROUTER_A2, "ps/edge", {
      description: "waits",
      script: "/system identity set name=waits",
      makeBackup: true,
      express: true,
      waitFor: "poll",
      timeoutMs: 4000,
    });
    const child = spawn(process.execPath, [join(ROOT, "bin", "routerjobs.js"), "apply"], {
      env: {
        ...process.env,
        ROUTERJOBS_URL: service.url,
        ROUTERJOBS_TOKEN: TOKEN_A,
        ROUTERJOBS_CA_FILE: caFile,
        ROUTERJOBS_STATE_DIR: dir,
        ROUTERJOBS_JOB: JSON.stringify(job),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    // Once it has submitted, it is waiting: its command line is what `ps` shows everyone.
    await waitFor(
      () => {
        if (output.includes("submitted")) return true;
        if (child.exitCode !== null) throw new Error(`apply exited before submitting:\n${output}`);
        return undefined;
      },
      { what: "apply to submit its job", detail: () => output },
    );
    const commandLine = (await readFile(`/proc/${child.pid}/cmdline`, "utf8")).replaceAll("\0", " ");
    expect(commandLine).toContain("routerjobs.js apply");
    expect(commandLine).not.toContain(SECRET);
    // It times out (the router is offline) with a clear line, and the token is in none of its output.
    expect(await exited).toBe(4);
    expect(output).toMatch(/is the router offline\?/);
    expect(output).not.toContain(SECRET);
  });
});
