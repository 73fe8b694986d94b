import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { within } from "../../helpers/wait-for.js";
import { getJobs, newJob, notificationFor, ObservedWakeups, startTestReceiver, tempDir } from "./helpers.js";

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
    const wakeups = new ObservedWakeups();
    const first = await startTestReceiver(dir.path, { wakeups });
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
    const unheard = newJob().idempotency_key;
    const waiter = getJobs(first, `idempotency_key=${unheard}&wait=60s`);
    await wakeups.waiting(unheard);
    // Long polls are released at shutdown instead of holding it for up to 60 s: the waiter gets its answer
    // (nothing heard of the job) and the close ends, both far sooner than the poll's own 60 s.
    const [results, , answer] = await within(Promise.all([Promise.all(deliveries), first.close(), waiter]), {
      what: "the shutdown to release a 60 s long poll and finish",
      timeoutMs: 20_000,
    });
    expect(answer.status).toBe(404);

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
