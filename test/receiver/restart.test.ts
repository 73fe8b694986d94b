import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJobs, newJob, notificationFor, startTestReceiver, tempDir } from "./helpers.js";

// Real HTTPS and a real PGlite data directory, closed and opened again as an operator's restart does.
describe("receiver restart", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(async () => {
    await dir?.remove();
  });

  it("loses nothing acknowledged, even with requests in flight at shutdown, and keeps its secrets", async () => {
    const first = await startTestReceiver(dir.path);
    const jobs = Array.from({ length: 40 }, () => newJob());
    for (const job of jobs)
      expect((await first.sender.post(notificationFor(job, "loaded"))).status).toBe(200);
    // Every job's `completed` is sent at once; shutdown starts as soon as the first one is acknowledged.
    const deliveries = jobs.map((job) =>
      first.sender
        .post(notificationFor(job, "completed"))
        .then((answer) => ({ job, acknowledged: answer.status === 200 }))
        .catch(() => ({ job, acknowledged: false })),
    );
    await Promise.race(deliveries);
    const waiter = getJobs(first, `idempotency_key=${newJob().idempotency_key}&wait=60s`).catch(
      () => undefined,
    );
    const closeStarted = performance.now();
    const [results] = await Promise.all([Promise.all(deliveries), first.close()]);
    // Long polls are released at shutdown instead of holding it for up to 60 s.
    expect(performance.now() - closeStarted).toBeLessThan(5000);
    expect([undefined, 404, 503]).toContain((await waiter)?.status);

    const second = await startTestReceiver(dir.path);
    try {
      expect(new URL(second.notifyUrl).pathname).toBe(new URL(first.notifyUrl).pathname);
      expect(second.readerToken).toBe(first.readerToken);
      for (const { job, acknowledged } of results) {
        const { status, body } = await getJobs(second, `idempotency_key=${job.idempotency_key}`);
        expect(status).toBe(200);
        const stored = (body.data as { status: string }).status;
        // Acknowledged means stored; an unacknowledged one may or may not have been (the service resends it).
        if (acknowledged) expect(stored).toBe("completed");
        else expect(["loaded", "completed"]).toContain(stored);
      }
      expect(results.some((result) => result.acknowledged)).toBe(true);
      // The data dir keeps working after the restart.
      const after = newJob();
      expect((await second.sender.post(notificationFor(after, "completed"))).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
