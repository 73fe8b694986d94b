import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../../src/client/index.js";
import { notificationSchema } from "../../../src/contract/job.js";
import type { Database } from "../../../src/service/database/database.js";
import type { NotificationStore } from "../../../src/service/receiver/notification-store.js";
import { ReceiverClient } from "../../../src/service/receiver/wait-client.js";
import { tempBudgetDir } from "../../client/helpers/make-client.js";
import { startStandIn } from "../../standin/standin.js";
import {
  getJobs,
  newJob,
  notificationFor,
  openTestStore,
  type Sender,
  startTestReceiver,
  tempDir,
} from "./helpers.js";

// The public service documents only job_id and status in a notification (ALTOSTRAT.md).
describe("receiver: notifications that carry only job_id and status", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let sender: Sender;
  let waiter: ReceiverClient;

  beforeAll(async () => {
    dir = await tempDir();
    receiver = await startTestReceiver(dir.path);
    sender = receiver.sender;
    waiter = new ReceiverClient({ url: receiver.url, readerToken: receiver.readerToken, ca: sender.ca });
  });
  afterAll(async () => {
    await waiter?.close();
    await receiver?.close();
    await dir?.remove();
  });

  it("stores one, reads it by job_id, and leaves the unknown fields out of the job view", async () => {
    const jobId = randomUUID();
    const answer = await sender.post({ job_id: jobId, status: "running" });
    expect(answer).toMatchObject({
      status: 200,
      body: { data: { duplicate: false, job_status: "running" } },
    });
    const read = await getJobs(receiver, `job_id=${jobId}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      job_id: jobId,
      status: "running",
      started_at: null,
      heard: ["running"],
    });
    for (const absent of ["idempotency_key", "router_id", "customer_id", "seq_id", "description"])
      expect(read.body.data).not.toHaveProperty(absent);
    expect((await waiter.getJobById(jobId))?.status).toBe("running");
    expect(await waiter.getJobById(randomUUID())).toBeUndefined();
  });

  it("reads the device's words (done, fail) and deduplicates on the status as sent", async () => {
    const jobId = randomUUID();
    expect((await sender.post({ job_id: jobId, status: "busy" })).body.data).toMatchObject({
      job_status: "running",
    });
    expect((await sender.post({ job_id: jobId, status: "fail" })).body.data).toMatchObject({
      duplicate: false,
      job_status: "failed",
    });
    expect((await sender.post({ job_id: jobId, status: "fail" })).body.data).toMatchObject({
      duplicate: true,
    });
    const read = await getJobs(receiver, `job_id=${jobId}`);
    expect(read.body.data).toMatchObject({ status: "failed", heard: ["busy", "fail"], error: null });
  });

  it("fills in the fields a later, fuller notification carries, and then answers by idempotency key", async () => {
    const job = newJob();
    await sender.post({ job_id: job.job_id, status: "loaded" });
    expect((await getJobs(receiver, `idempotency_key=${job.idempotency_key}`)).status).toBe(404);
    await sender.post(notificationFor(job, "completed"));
    const byKey = await getJobs(receiver, `idempotency_key=${job.idempotency_key}`);
    expect(byKey.body.data).toMatchObject({
      job_id: job.job_id,
      router_id: job.router_id,
      seq_id: 1,
      status: "completed",
      heard: ["loaded", "completed"],
    });
  });

  it("wakes a long poll by job_id when the terminal notification arrives", async () => {
    const jobId = randomUUID();
    await sender.post({ job_id: jobId, status: "running" });
    const waiting = waiter.waitForJob({ jobId, timeoutMs: 20_000 });
    // The wait is registered before the terminal notification only if the poll is already on the wire; either
    // order ends "terminal", which is the behaviour under test.
    await sender.post({ job_id: jobId, status: "completed" });
    const result = await waiting;
    expect(result.outcome).toBe("terminal");
    expect(result.job).toMatchObject({ job_id: jobId, status: "completed" });
  });

  it("refuses a query naming both idempotency_key and job_id, and a notification without job_id or status", async () => {
    const both = await getJobs(receiver, `idempotency_key=${randomUUID()}&job_id=${randomUUID()}`);
    expect(both.status).toBe(422);
    expect(both.body.error?.details?.[0]).toMatchObject({ field: "job_id" });
    await expect(waiter.waitForJob({ timeoutMs: 1000 })).rejects.toThrow(
      /exactly one of idempotencyKey and jobId/,
    );
    const missing = await sender.post({ status: "completed" });
    expect(missing.status).toBe(422);
    expect(missing.body.error?.details?.map((detail) => detail.field)).toEqual(["job_id"]);
    expect((await sender.post({ job_id: randomUUID() })).body.error?.details?.[0]?.field).toBe("status");
  });
});

describe("receiver store: a minimal notification keeps its raw payload", () => {
  let opened: Awaited<ReturnType<typeof openTestStore>>;
  let db: Database;
  let store: NotificationStore;

  beforeAll(async () => {
    opened = await openTestStore();
    ({ db, store } = opened);
  });
  afterAll(async () => opened?.close());

  it("stores the payload as sent, unknown fields included", async () => {
    const jobId = randomUUID();
    const payload = { job_id: jobId, status: "done", vendor: { region: "eu" } };
    const { job } = await store.record(notificationSchema.parse(payload), "done");
    expect(job).toMatchObject({ job_id: jobId, status: "completed" });
    const { rows } = await db.query<{ payload: unknown; status: string; idempotency_key: string | null }>(
      "SELECT payload, status, idempotency_key FROM receiver_notifications WHERE job_id = $1",
      [jobId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "done", idempotency_key: null });
    expect(rows[0]?.payload).toMatchObject({ job_id: jobId, vendor: { region: "eu" } });
  });
});

// End to end: the stand-in of the public service posts its minimal notifications to our receiver.
describe("receiver: notifications from the stand-in of the public service", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let standIn: Awaited<ReturnType<typeof startStandIn>>;
  let client: RouterJobsClient;
  let waiter: ReceiverClient;
  const token = "ak_live_opaque-console-key.123";
  const siteId = randomUUID();

  beforeAll(async () => {
    dir = await tempDir();
    receiver = await startTestReceiver(dir.path);
    standIn = await startStandIn({
      teams: [{ id: randomUUID(), tokens: [token], sites: [siteId] }],
      notifyCa: receiver.sender.ca,
      notificationShape: "minimal",
    });
    client = new RouterJobsClient({ baseUrl: standIn.url, token, budgetDir: tempBudgetDir() });
    waiter = new ReceiverClient({
      url: receiver.url,
      readerToken: receiver.readerToken,
      ca: receiver.sender.ca,
    });
  });
  afterAll(async () => {
    await client?.close();
    await waiter?.close();
    await standIn?.close();
    await receiver?.close();
    await dir?.remove();
  });

  it("lets a waiter follow a job by the id the job list gives", async () => {
    const { ack } = await client.submitJob(siteId, {
      description: "identity",
      script: "/system identity print",
      express_execute: true,
      needs_acknowledgement: true,
      notify_url: receiver.notifyUrl,
    });
    // API A's answer names no job: the job list finds it by the service's own idempotency key.
    const listed = (await client.listJobs(siteId)).find((job) => job.idempotency_key === ack.idempotency_key);
    expect(listed).toBeDefined();
    const result = await waiter.waitForJob({ jobId: listed?.id as string, timeoutMs: 20_000 });
    expect(result.outcome).toBe("terminal");
    expect(result.job).toMatchObject({ job_id: listed?.id, status: "completed" });
    expect(result.job).not.toHaveProperty("idempotency_key");
  });
});
