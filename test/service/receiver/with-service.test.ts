/**
 * The receiver fed by the real service (not a test sender): every state the service announces arrives once,
 * in the contract's order, and a waiter learns the outcome without asking the service.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { ReceiverClient } from "../../../src/service/receiver/wait-client.js";
import { ADMIN_TOKEN, ROUTER_A, ROUTER_A2, startTestService, type TestService } from "../harness.js";
import { startTestReceiver, tempDir } from "./helpers.js";

describe("the receiver as the service's notify_url", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let service: TestService;
  let waiter: ReceiverClient;

  beforeAll(async () => {
    dir = await tempDir();
    receiver = await startTestReceiver(dir.path, { logger: false });
    const ca = await readFile(receiver.caFile as string, "utf8");
    service = await startTestService({ notifyCa: ca });
    waiter = new ReceiverClient({ url: receiver.url, readerToken: receiver.readerToken, ca });
  });
  afterAll(async () => {
    await waiter?.close();
    await service?.close();
    await receiver?.close();
    await dir?.remove();
  });

  async function submit(routerId: string, script: string, extra: Record<string, unknown> = {}) {
    const answer = await service.submit(routerId, {
      description: "via receiver",
      script,
      notify_url: receiver.notifyUrl,
      express_execute: true,
      ...extra,
    });
    expect(answer.status).toBe(202);
    return answer.body.data.idempotency_key as string;
  }
  const router = (id: string) => (service.backend as SimulatedBackend).router(id);

  it("hears loaded, running and completed, once each and in order, for a job that succeeds", async () => {
    const key = await submit(ROUTER_A, "/system identity set name=heard");
    const waited = await waiter.waitForJob({ idempotencyKey: key, timeoutMs: 20_000 });
    expect(waited.outcome).toBe("terminal");
    expect(waited.job).toMatchObject({ status: "completed", heard: ["loaded", "running", "completed"] });
  });

  it("hears a failure with the router's reason", async () => {
    const key = await submit(ROUTER_A2, "/ip address add address=10.3.3.1/24 interface=missing");
    const waited = await waiter.waitForJob({ idempotencyKey: key, timeoutMs: 20_000 });
    expect(waited.job).toMatchObject({ status: "failed", heard: ["loaded", "running", "failed"] });
    expect(waited.job?.error).toContain("input does not match any value of interface");
  });

  it("hears a job without acknowledgement as completed at once", async () => {
    const key = await submit(ROUTER_A, "/system identity set name=noack", { needs_acknowledgement: false });
    const waited = await waiter.waitForJob({ idempotencyKey: key, timeoutMs: 20_000 });
    expect(waited.job?.status).toBe("completed");
    expect(waited.job?.heard?.[0]).toBe("completed");
  });

  it("hears a job an operator deleted while it waited for its router", async () => {
    // GIVEN a job that waits: its router's tunnel is down (a first call attaches the router)
    await service.call("POST", `/api/synchronous/${ROUTER_A2}`, {
      body: { command: "/system/identity/print" },
    });
    (service.backend as SimulatedBackend).setOnline(ROUTER_A2, false);
    try {
      const key = await submit(ROUTER_A2, "/system identity set name=never");
      const job = (await service.jobs(ROUTER_A2)).find((item) => item.idempotency_key === key);
      expect(job.status).toBe("pending");
      // WHEN the operator deletes it
      const deleted = await service.call("DELETE", `/admin/jobs/${job.id}`, { token: ADMIN_TOKEN });
      expect(deleted.status).toBe(200);
      // THEN the receiver hears `deleted`, a terminal state, and the router never ran the script
      const waited = await waiter.waitForJob({ idempotencyKey: key, timeoutMs: 20_000 });
      expect(waited.outcome).toBe("terminal");
      expect(waited.job).toMatchObject({ status: "deleted", heard: ["deleted"] });
    } finally {
      (service.backend as SimulatedBackend).setOnline(ROUTER_A2, true);
    }
    expect(await router(ROUTER_A2).runSource(":put [/system identity get name]")).not.toEqual(["never"]);
  });
});
