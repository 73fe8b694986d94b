import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkError } from "../../src/client/errors.js";
import { ReceiverAuthError } from "../../src/receiver/errors.js";
import { ReceiverClient } from "../../src/receiver/wait-client.js";
import { getJobs, newJob, notificationFor, startTestReceiver, tempDir } from "./helpers.js";

// Real HTTPS and PGlite; waiters and senders are separate connections, as `apply` and the service are.
describe("receiver wait API", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let client: ReceiverClient;

  beforeAll(async () => {
    dir = await tempDir();
    receiver = await startTestReceiver(dir.path);
    client = new ReceiverClient({
      url: receiver.url,
      readerToken: receiver.readerToken,
      ca: receiver.sender.ca,
    });
  });
  afterAll(async () => {
    await client?.close();
    await receiver?.close();
    await dir?.remove();
  });

  it("refuses a missing or wrong reader token with 401 and WWW-Authenticate", async () => {
    const key = `idempotency_key=${randomUUID()}`;
    for (const token of ["wrong-token", "", receiver.readerToken.slice(1)]) {
      const answer = await getJobs(receiver, key, token);
      expect(answer.status).toBe(401);
      expect(answer.headers["www-authenticate"]).toBe("Bearer");
    }
    const wrong = new ReceiverClient({ url: receiver.url, readerToken: "nope", ca: receiver.sender.ca });
    await expect(wrong.waitForJob({ idempotencyKey: randomUUID(), timeoutMs: 5000 })).rejects.toBeInstanceOf(
      ReceiverAuthError,
    );
    await wrong.close();
  });

  it("answers 404 for a key it heard nothing of", async () => {
    const answer = await getJobs(receiver, `idempotency_key=${randomUUID()}`);
    expect(answer).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    expect(await client.getJob(randomUUID())).toBeUndefined();
  });

  it("refuses bad queries with 422 naming the parameter and limit", async () => {
    const key = randomUUID();
    const cases: [string, RegExp][] = [
      [`idempotency_key=${key}&wait=90s`, /wait must be at most 60s \(got 90s\)/],
      [`idempotency_key=${key}&wait=soon`, /wait must be a number followed by ms, s, m or h/],
      ["wait=5s", /wait needs idempotency_key/],
      ["limit=500", /limit must be at most 100/],
      [`idempotency_key=${key}&status=completed`, /status/],
    ];
    for (const [query, message] of cases) {
      const answer = await getJobs(receiver, query);
      expect(answer.status).toBe(422);
      expect(JSON.stringify(answer.body.error)).toMatch(message);
    }
  });

  it("wakes a long-poll waiter within 100 ms of the terminal notification", async () => {
    // Warm the path once, so that the bound measures wake-up and not first-use costs.
    await receiver.sender.post(notificationFor(newJob(), "completed"));
    // The median of several trials: on a shared 2-core machine one trial can lose the CPU for tens of ms.
    const latencies: number[] = [];
    for (let trial = 0; trial < 5; trial++) {
      const job = newJob();
      await receiver.sender.post(notificationFor(job, "running"));
      const waiting = getJobs(receiver, `idempotency_key=${job.idempotency_key}&wait=30s`).then((answer) => ({
        answer,
        at: performance.now(),
      }));
      await new Promise((resolve) => setTimeout(resolve, 150));
      const sentAt = performance.now();
      await receiver.sender.post(notificationFor(job, "completed"));
      const { answer, at } = await waiting;
      expect(answer.body.data).toMatchObject({ status: "completed" });
      latencies.push(at - sentAt);
    }
    const median = [...latencies].sort((a, b) => a - b)[2] as number;
    expect(median, `latencies ${latencies.map((ms) => ms.toFixed(1)).join(", ")} ms`).toBeLessThan(100);
  });

  it("returns at once when the job is already terminal, and with the current state on timeout", async () => {
    const done = newJob();
    await receiver.sender.post(notificationFor(done, "failed"));
    let started = performance.now();
    expect((await getJobs(receiver, `idempotency_key=${done.idempotency_key}&wait=30s`)).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);

    const busy = newJob();
    await receiver.sender.post(notificationFor(busy, "loaded"));
    started = performance.now();
    const answer = await getJobs(receiver, `idempotency_key=${busy.idempotency_key}&wait=300ms`);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(answer.body.data).toMatchObject({ status: "loaded" });
    // A non-terminal change does not end the wait early; the next terminal one does.
    const unheard = await getJobs(receiver, `idempotency_key=${randomUUID()}&wait=200ms`);
    expect(unheard.status).toBe(404);
  });

  it("wakes a waiter whose job was unknown when it started waiting", async () => {
    const job = newJob();
    const waiting = client.waitForJob({ idempotencyKey: job.idempotency_key, timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await receiver.sender.post(notificationFor(job, "loaded"));
    await receiver.sender.post(notificationFor(job, "deleted"));
    const result = await waiting;
    expect(result).toMatchObject({ outcome: "terminal", job: { status: "deleted" }, lastError: undefined });
    expect(result.lastHeardAt).toBeInstanceOf(Date);
    expect(Math.abs(Date.now() - (result.lastHeardAt as Date).getTime())).toBeLessThan(10_000);
  });

  it("waitForJob long-polls repeatedly until the deadline, reporting what it heard", async () => {
    const short = new ReceiverClient({
      url: receiver.url,
      readerToken: receiver.readerToken,
      ca: receiver.sender.ca,
      longPollMs: 150,
    });
    const job = newJob();
    await receiver.sender.post(notificationFor(job, "running"));
    const started = performance.now();
    const result = await short.waitForJob({ idempotencyKey: job.idempotency_key, timeoutMs: 600 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(590);
    expect(result).toMatchObject({ outcome: "timeout", job: { status: "running" } });
    await short.close();
  });

  it("waitForJob gives up early when the receiver stays quiet about the job", async () => {
    const started = performance.now();
    const result = await client.waitForJob({ idempotencyKey: randomUUID(), timeoutMs: 10_000, quietMs: 300 });
    expect(result).toMatchObject({ outcome: "quiet", job: undefined, lastHeardAt: undefined });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("waitForJob outlasts an unreachable receiver until its deadline, reporting the network error", async () => {
    const down = new ReceiverClient({ url: "https://127.0.0.1:1", readerToken: "x", retryDelayMs: 50 });
    const result = await down.waitForJob({ idempotencyKey: randomUUID(), timeoutMs: 400 });
    expect(result).toMatchObject({ outcome: "timeout", job: undefined });
    expect(result.lastError).toBeInstanceOf(NetworkError);
    await down.close();
  });

  it("waitForJob fails at once on a query the receiver refuses (4xx), instead of retrying", async () => {
    const started = performance.now();
    await expect(client.waitForJob({ idempotencyKey: "", timeoutMs: 10_000 })).rejects.toMatchObject({
      name: "ReceiverRequestError",
      statusCode: 422,
    });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("lists recent jobs of one router, newest first", async () => {
    const routerId = randomUUID();
    const jobs = [newJob(routerId), newJob(routerId), newJob(routerId)];
    for (const job of jobs) await receiver.sender.post(notificationFor(job, "loaded"));
    await receiver.sender.post(notificationFor(newJob(), "loaded"));
    const listed = await client.recentJobs({ routerId });
    expect(listed.map((job) => job.job_id)).toEqual(jobs.map((job) => job.job_id).reverse());
    expect(await client.recentJobs({ routerId, limit: 1 })).toHaveLength(1);
  });
});
