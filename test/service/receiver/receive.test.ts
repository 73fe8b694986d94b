import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_STATUSES, type Notification, notificationSchema } from "../../../src/contract/job.js";
import type { NotificationStore } from "../../../src/service/receiver/notification-store.js";
import {
  getJobs,
  newJob,
  notificationFor,
  openTestStore,
  type Sender,
  startTestReceiver,
  tempDir,
} from "./helpers.js";

// Real HTTPS on loopback with the receiver's generated local CA, and a real PGlite data directory.
describe("receiver: notifications over HTTPS", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let sender: Sender;

  beforeAll(async () => {
    dir = await tempDir();
    receiver = await startTestReceiver(dir.path);
    sender = receiver.sender;
  });
  afterAll(async () => {
    await receiver?.close();
    await dir?.remove();
  });

  it("stores every status and reports the job's current state", async () => {
    for (const status of JOB_STATUSES) {
      const job = newJob();
      const answer = await sender.post(notificationFor(job, status));
      expect(answer).toMatchObject({ status: 200, body: { data: { duplicate: false, job_status: status } } });
      const read = await getJobs(receiver, `idempotency_key=${job.idempotency_key}`);
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ job_id: job.job_id, router_id: job.router_id, status });
    }
  });

  it("follows a job through its lifecycle and keeps the failure's error text", async () => {
    const job = newJob();
    for (const status of ["loaded", "running", "failed"] as const) {
      expect((await sender.post(notificationFor(job, status))).status).toBe(200);
    }
    const { body } = await getJobs(receiver, `idempotency_key=${job.idempotency_key}`);
    expect(body.data).toMatchObject({
      status: "failed",
      error: "failure: already have such address (line 1)",
      started_at: expect.any(String),
      failed_at: expect.any(String),
      completed_at: null,
    });
  });

  it("acknowledges a duplicate (job_id, status) and drops it", async () => {
    const job = newJob();
    const first = notificationFor(job, "running");
    expect((await sender.post(first)).body.data).toMatchObject({ duplicate: false });
    const before = await getJobs(receiver, `idempotency_key=${job.idempotency_key}`);
    const again = await sender.post({ ...first, description: "changed on retry" });
    expect(again).toMatchObject({ status: 200, body: { data: { duplicate: true, job_status: "running" } } });
    const after = await getJobs(receiver, `idempotency_key=${job.idempotency_key}`);
    expect(after.body.data).toEqual(before.body.data);
  });

  it("never moves a job backwards: running after completed stays completed, times still fill in", async () => {
    const job = newJob();
    const completed = notificationFor(job, "completed", { started_at: null });
    const running = notificationFor(job, "running", { started_at: "2026-11-22T17:22:28.123+00:00" });
    await sender.post(completed);
    const late = await sender.post(running);
    expect(late).toMatchObject({
      status: 200,
      body: { data: { duplicate: false, job_status: "completed" } },
    });
    const { body } = await getJobs(receiver, `idempotency_key=${job.idempotency_key}`);
    expect(body.data).toMatchObject({ status: "completed", started_at: "2026-11-22T17:22:28.123+00:00" });
  });

  it("keeps the first terminal state: a later failed or deleted does not replace completed", async () => {
    const job = newJob();
    await sender.post(notificationFor(job, "completed"));
    await sender.post(notificationFor(job, "failed"));
    await sender.post(notificationFor(job, "deleted"));
    const { body } = await getJobs(receiver, `idempotency_key=${job.idempotency_key}`);
    expect(body.data).toMatchObject({ status: "completed", error: null });
  });

  it("accepts a status it does not know without moving the job, and unknown fields", async () => {
    const job = newJob();
    await sender.post(notificationFor(job, "running"));
    const answer = await sender.post({ ...notificationFor(job, "running"), status: "paused", extra: 1 });
    expect(answer).toMatchObject({
      status: 200,
      body: { data: { duplicate: false, job_status: "running" } },
    });
  });

  it("refuses a wrong path secret with 401 before reading the body", async () => {
    const wrong = receiver.notifyUrl.replace(/\/notify\/.*$/, "/notify/not-the-secret-at-all-0000");
    const answer = await sender.post(notificationFor(newJob(), "loaded"), { url: wrong });
    expect(answer).toMatchObject({ status: 401, body: { error: { code: "unauthenticated" } } });
    const bigAndWrong = await sender.post("x".repeat(100_000), { url: wrong });
    expect(bigAndWrong.status).toBe(401);
  });

  it("refuses a notify URL with an empty secret", async () => {
    const answer = await sender.post(notificationFor(newJob(), "loaded"), {
      url: receiver.notifyUrl.replace(/\/notify\/.*$/, "/notify/"),
    });
    expect(answer.status).toBe(401);
  });

  it("refuses an oversized body with 413", async () => {
    const huge = notificationFor(newJob(), "loaded", { description: "x".repeat(20 * 1024) });
    const answer = await sender.post(huge);
    expect(answer).toMatchObject({ status: 413, body: { error: { code: "payload_too_large" } } });
  });

  it("treats a POST without body or content type as an empty, malformed body (400)", async () => {
    const { request } = await import("undici");
    const response = await request(receiver.notifyUrl, { method: "POST", dispatcher: sender.dispatcher });
    expect(response.statusCode).toBe(400);
    await response.body.dump();
  });

  it("answers 404 to other methods without echoing the secret in the path", async () => {
    const { request } = await import("undici");
    const response = await request(receiver.notifyUrl, { method: "GET", dispatcher: sender.dispatcher });
    expect(response.statusCode).toBe(404);
    const text = await response.body.text();
    expect(text).not.toContain(new URL(receiver.notifyUrl).pathname.split("/").at(-1));
  });

  it("refuses malformed JSON with 400 and an empty body with 400", async () => {
    expect(await sender.post('{"job_id": ')).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_json" } },
    });
    expect((await sender.post("")).status).toBe(400);
  });

  it("refuses a body that is not application/json with 415", async () => {
    const body = JSON.stringify(notificationFor(newJob(), "loaded"));
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const answer = await sender.post(body, { contentType });
      expect(answer).toMatchObject({ status: 415, body: { error: { code: "unsupported_media_type" } } });
    }
    expect((await sender.post(body, { contentType: "application/json; charset=utf-8" })).status).toBe(200);
  });

  it("refuses a payload that fails the schema with 422 naming each field", async () => {
    const answer = await sender.post({
      ...notificationFor(newJob(), "loaded"),
      make_backup: "yes",
      seq_id: 0,
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error?.details?.map((detail) => detail.field).sort()).toEqual([
      "make_backup",
      "seq_id",
    ]);
    expect((await sender.post([1, 2])).status).toBe(422);
    expect((await sender.post("null")).status).toBe(422);
  });

  it("refuses text the database cannot store and a seq_id beyond its column with 422, storing its neighbours", async () => {
    const bad = [
      ["description", { description: "add\u0000address" }],
      ["error", { error: "half \ud800 a pair" }],
      ["status", { status: "running\u0000" }],
      ["portal.note", { portal: { note: "\u0000" } }],
      ["seq_id", { seq_id: 2 ** 31 }],
    ] as const;
    const good = bad.map(() => newJob());
    // Sent together, so that good and bad notifications share the receiver's write batches.
    const answers = await Promise.all([
      ...bad.map(([, extra]) => sender.post(notificationFor(newJob(), "running", extra))),
      ...good.map((job) => sender.post(notificationFor(job, "running", { description: "emoji 😀 fine" }))),
    ]);
    for (const [index, [field]] of bad.entries()) {
      expect(answers[index]?.status, field).toBe(422);
      expect(answers[index]?.body.error?.details?.map((detail) => detail.field)).toEqual([field]);
      expect(answers[index]?.body.error?.details?.[0]?.message).toMatch(new RegExp(`^${field} must`));
    }
    for (const answer of answers.slice(bad.length)) expect(answer.status).toBe(200);
    const stored = await getJobs(receiver, `idempotency_key=${good[0]?.idempotency_key}`);
    expect(stored.body.data).toMatchObject({ description: "emoji 😀 fine" });
  });

  it("refuses NUL in the wait API's query with 422 instead of failing in the database", async () => {
    for (const query of ["idempotency_key=a%00b", "router_id=%00"]) {
      const answer = await getJobs(receiver, query);
      expect(answer.status, query).toBe(422);
      expect(answer.body.error?.details?.[0]?.message).toMatch(/must not contain NUL characters/);
    }
  });

  it("answers /healthz", async () => {
    const response = await fetchWithCa(`${receiver.url}/healthz`);
    expect(response.status).toBe(200);
  });

  async function fetchWithCa(url: string) {
    const { request } = await import("undici");
    const response = await request(url, { dispatcher: sender.dispatcher });
    await response.body.dump();
    return { status: response.statusCode };
  }
});

// The store itself, below the schema: a write batch that the database refuses because of one notification.
describe("receiver store: one bad notification in a write batch", () => {
  let opened: Awaited<ReturnType<typeof openTestStore>>;
  let store: NotificationStore;

  beforeAll(async () => {
    opened = await openTestStore();
    ({ store } = opened);
  });
  afterAll(async () => opened?.close());

  it("fails only that notification: the others of its batch are stored and acknowledged", async () => {
    const jobs = [newJob(), newJob(), newJob(), newJob()];
    // Past the schema on purpose: PostgreSQL refuses NUL in the jsonb payload, failing the batch's transaction.
    const notifications = jobs.map((job, index) =>
      notificationSchema.parse(notificationFor(job, "completed", index === 2 ? {} : { description: "ok" })),
    );
    const poisoned = { ...notifications[2], description: "bad\u0000" } as Notification;
    const outcomes = await Promise.allSettled(
      notifications.map((notification, index) =>
        store.record(index === 2 ? poisoned : notification, "completed"),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    for (const [index, job] of jobs.entries()) {
      const stored = await store.findByIdempotencyKey(job.idempotency_key);
      if (index === 2) expect(stored).toBeUndefined();
      else expect(stored).toMatchObject({ job_id: job.job_id, status: "completed" });
    }
  });
});
