/**
 * The receiver down for a while during a deploy: the service keeps retrying its notifications, the waiting
 * apply falls back to the job list and still confirms, and once the receiver is back (same port, same data)
 * the retried notifications arrive, each once.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApplyJob } from "../../src/contract/apply-job.js";
import { applyJob } from "../../src/deploy/apply/apply.js";
import { Journal } from "../../src/deploy/apply/journal.js";
import { ReceiverClient } from "../../src/service/receiver/wait-client.js";
import { declareJob } from "../helpers/declared-job.js";
import { clientOf, ROUTER_A, startTestService, type TestService } from "../service/harness.js";
import { startTestReceiver, tempDir } from "../service/receiver/helpers.js";

describe("the receiver down during a deploy", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let service: TestService;
  let stateDir: string;

  beforeAll(async () => {
    dir = await tempDir();
    stateDir = await mkdtemp(join(tmpdir(), "rj-faults-"));
  });
  afterAll(async () => {
    await service?.close();
    await dir?.remove();
    await rm(stateDir, { recursive: true, force: true });
  });

  it("does not stop apply from confirming, and loses no notification", async () => {
    // GIVEN a receiver that the service trusts, which then goes down
    const first = await startTestReceiver(dir.path, { logger: false });
    const { port } = new URL(first.url);
    const ca = await readFile(first.caFile as string, "utf8");
    const readerToken = first.readerToken;
    const notifyUrl = first.notifyUrl;
    await first.close();
    service = await startTestService({ notifyCa: ca, notifyRetryBaseMs: 100, notifyRetryMaxMs: 500 });
    const client = clientOf(service, stateDir);
    const waiter = new ReceiverClient({ url: first.url, readerToken, ca, retryDelayMs: 200 });
    const job: ApplyJob = declareJob(ROUTER_A, "faults/receiver", {
      description: "while the receiver is down",
      script: "/system identity set name=receiver-down",
      makeBackup: true,
      express: true,
      waitFor: "receiver",
      timeoutMs: 30_000,
    });
    const lines: string[] = [];
    try {
      // WHEN apply waits through the receiver
      const started = performance.now();
      const result = await applyJob(job, {
        client,
        journal: new Journal(stateDir),
        instanceId: "instance-1",
        receiver: waiter,
        notifyUrl,
        receiverQuietMs: 1500,
        write: (line) => lines.push(line),
      });
      const seconds = (performance.now() - started) / 1000;
      // THEN it confirmed through the job list after the receiver stayed silent
      expect(result.outcome).toBe("completed");
      expect(lines.some((line) => line.includes("asking the job list"))).toBe(true);
      // WHEN the receiver comes back on the same port with the same data
      const back = await startTestReceiver(dir.path, { logger: false, port: Number(port) });
      try {
        const reader = new ReceiverClient({ url: back.url, readerToken, ca });
        const key = (await new Journal(stateDir).read(job.job_key))?.attempts[0]?.idempotencyKey as string;
        // THEN the service's retries deliver every state, each once
        const heard = await reader.waitForJob({ idempotencyKey: key, timeoutMs: 15_000 });
        await reader.close();
        expect(heard.job?.heard).toEqual(["loaded", "running", "completed"]);
        console.log(
          `receiver down: apply confirmed by the job list in ${seconds.toFixed(1)} s; after the restart the receiver heard ${heard.job?.heard?.join(", ")} (0 lost, 0 duplicated)`,
        );
      } finally {
        await back.close();
      }
    } finally {
      await waiter.close();
      await client.close();
    }
  });
});
