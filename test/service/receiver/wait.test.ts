import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkError } from "../../../src/client/errors.js";
import { ReceiverAuthError } from "../../../src/service/receiver/errors.js";
import { ReceiverClient } from "../../../src/service/receiver/wait-client.js";
import { manualClock } from "../../helpers/manual-clock.js";
import { within } from "../../helpers/wait-for.js";
import { getJobs, newJob, notificationFor, ObservedWakeups, startTestReceiver, tempDir } from "./helpers.js";

// Real HTTPS and PGlite; waiters and senders are separate connections, as `apply` and the service are.
describe("receiver wait API", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let client: ReceiverClient;
  const wakeups = new ObservedWakeups();

  beforeAll(async () => {
    dir = await tempDir();
    receiver = await startTestReceiver(dir.path, { wakeups });
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

  it("wakes a long-poll waiter with the terminal notification, long before its wait ends", async () => {
    // How fast the wake is belongs to bench/receiver.bench.ts; here, that it comes from the notification.
    const job = newJob();
    await receiver.sender.post(notificationFor(job, "running"));
    const waiting = getJobs(receiver, `idempotency_key=${job.idempotency_key}&wait=60s`);
    await wakeups.waiting(job.idempotency_key);
    await receiver.sender.post(notificationFor(job, "completed"));
    const answer = await within(waiting, {
      what: "the terminal notification to end a 60 s long poll",
      timeoutMs: 20_000,
    });
    expect(answer.body.data).toMatchObject({ status: "completed" });
  });

  it("returns at once when the job is already terminal, without waiting", async () => {
    const done = newJob();
    await receiver.sender.post(notificationFor(done, "failed"));
    const answer = await within(getJobs(receiver, `idempotency_key=${done.idempotency_key}&wait=60s`), {
      what: "the answer for a job already failed, asked to wait 60 s",
      timeoutMs: 20_000,
    });
    expect(answer).toMatchObject({ status: 200, body: { data: { status: "failed" } } });
    expect(wakeups.waitCount(done.idempotency_key)).toBe(0);
  });

  it("waits out the wait it was asked for, then answers with the job's current state", async () => {
    const busy = newJob();
    await receiver.sender.post(notificationFor(busy, "loaded"));
    // 1 s, not 100 ms: the wait counts from the request, and under load the first read took longer than
    // 100 ms, so the poll rightly answered without waiting.
    const answer = await getJobs(receiver, `idempotency_key=${busy.idempotency_key}&wait=1s`);
    expect(wakeups.waitCount(busy.idempotency_key)).toBeGreaterThan(0);
    expect(answer).toMatchObject({ status: 200, body: { data: { status: "loaded" } } });
    const key = randomUUID();
    const unheard = await getJobs(receiver, `idempotency_key=${key}&wait=1s`);
    expect(wakeups.waitCount(key)).toBeGreaterThan(0);
    expect(unheard.status).toBe(404);
  });

  it("keeps waiting through a non-terminal change, and answers the terminal one", async () => {
    const job = newJob();
    await receiver.sender.post(notificationFor(job, "loaded"));
    const waiting = getJobs(receiver, `idempotency_key=${job.idempotency_key}&wait=60s`);
    await wakeups.waiting(job.idempotency_key);
    await receiver.sender.post(notificationFor(job, "running"));
    // The running wake made the poll read the job again and wait a second time: it did not answer "running".
    await wakeups.waiting(job.idempotency_key, 2);
    await receiver.sender.post(notificationFor(job, "completed"));
    const answer = await within(waiting, {
      what: "the terminal notification to end a 60 s long poll",
      timeoutMs: 20_000,
    });
    expect(answer.body.data).toMatchObject({ status: "completed" });
  });

  it("wakes a waiter whose job was unknown when it started waiting", async () => {
    const job = newJob();
    const waiting = client.waitForJob({ idempotencyKey: job.idempotency_key, timeoutMs: 60_000 });
    await wakeups.waiting(job.idempotency_key);
    const sentAt = Date.now();
    await receiver.sender.post(notificationFor(job, "loaded"));
    await receiver.sender.post(notificationFor(job, "deleted"));
    // Its long poll asked to wait 30 s: only the wake answers it sooner (a re-read at the end would too).
    const result = await within(waiting, {
      what: "the notifications to wake a 30 s long poll",
      timeoutMs: 20_000,
    });
    expect(result).toMatchObject({
      outcome: "terminal",
      job: { status: "deleted" },
      lastHeardAt: expect.any(Date),
    });
    expect(result.lastError).toBeUndefined();
    // The receiver's clock is this one: it heard the job after the test sent it (a clock value, not a duration).
    expect((result.lastHeardAt as Date).getTime()).toBeGreaterThanOrEqual(sentAt - 1000);
    expect((result.lastHeardAt as Date).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("waitForJob long-polls repeatedly until the deadline, reporting what it heard", async () => {
    // The wait's deadline is on a clock the test moves: it passes once a second long poll has begun, however
    // long the first took on a loaded machine.
    const clock = manualClock();
    const short = new ReceiverClient({
      url: receiver.url,
      readerToken: receiver.readerToken,
      ca: receiver.sender.ca,
      longPollMs: 150,
      now: clock.nowMs,
    });
    const job = newJob();
    await receiver.sender.post(notificationFor(job, "running"));
    const waiting = short.waitForJob({ idempotencyKey: job.idempotency_key, timeoutMs: 600 });
    // A second long poll asked for the job: the first ended (150 ms, nothing new) and the wait went on.
    await wakeups.waiting(job.idempotency_key, 2);
    clock.advance(600);
    const result = await waiting;
    expect(result).toMatchObject({ outcome: "timeout", job: { status: "running" } });
    await short.close();
  });

  it("waitForJob gives up early when the receiver stays quiet about the job", async () => {
    // "quiet", not "timeout": it stopped at quietMs, long before its 10 s deadline.
    const result = await client.waitForJob({ idempotencyKey: randomUUID(), timeoutMs: 10_000, quietMs: 300 });
    expect(result).toMatchObject({ outcome: "quiet", job: undefined, lastHeardAt: undefined });
  });

  it("waitForJob outlasts an unreachable receiver until its deadline, reporting the network error", async () => {
    const down = new ReceiverClient({ url: "https://127.0.0.1:1", readerToken: "x", retryDelayMs: 50 });
    const result = await down.waitForJob({ idempotencyKey: randomUUID(), timeoutMs: 400 });
    expect(result).toMatchObject({ outcome: "timeout", job: undefined });
    expect(result.lastError).toBeInstanceOf(NetworkError);
    await down.close();
  });

  it("waitForJob fails at once on a query the receiver refuses (4xx), instead of retrying", async () => {
    // A retried 4xx would end at the deadline as a "timeout" result carrying the error, not as this rejection.
    await expect(client.waitForJob({ idempotencyKey: "", timeoutMs: 10_000 })).rejects.toMatchObject({
      name: "ReceiverRequestError",
      statusCode: 422,
    });
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
