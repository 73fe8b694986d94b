import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailability, startPostgres, type TestPostgres } from "../../helpers/postgres.js";
import { waitFor } from "../../helpers/wait-for.js";
import { getJobs, newJob, notificationFor, ObservedWakeups, startTestReceiver, tempDir } from "./helpers.js";

const PATH_SECRET = "shared-path-secret-0123456789";
const READER_TOKEN = "shared-reader-token-0123456789";

// Two receiver instances behind one (imagined) load balancer, on one real PostgreSQL.
describe.skipIf(!postgresAvailability().available)("two receivers on one PostgreSQL", () => {
  let postgres: TestPostgres;
  let dirs: Awaited<ReturnType<typeof tempDir>>[] = [];
  let a: Awaited<ReturnType<typeof startTestReceiver>>;
  let b: Awaited<ReturnType<typeof startTestReceiver>>;
  const wakeupsA = new ObservedWakeups();

  beforeAll(async () => {
    postgres = await startPostgres();
    // Each instance has its own data directory (its own certificate), as on separate machines.
    dirs = await Promise.all([tempDir(), tempDir()]);
    const options = { database: postgres.url, pathSecrets: [PATH_SECRET], readerToken: READER_TOKEN };
    // Started together: the migration lock must let both come up on the empty database.
    const [first, second] = dirs.map((dir) => dir.path) as [string, string];
    [a, b] = await Promise.all([
      startTestReceiver(first, { ...options, wakeups: wakeupsA }),
      startTestReceiver(second, options),
    ]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await postgres?.stop();
    await Promise.all(dirs.map((dir) => dir.remove()));
  });

  it("wakes a waiter on instance A for a terminal notification stored by instance B", async () => {
    expect(a.databaseKind).toBe("postgres");
    const job = newJob();
    await b.sender.post(notificationFor(job, "running"));
    const heard = () => wakeupsA.remoteWakeCount(job.idempotency_key);
    await waitFor(() => heard() > 0, {
      what: "instance A to hear of B's running notification through NOTIFY",
    });
    // LISTEN/NOTIFY, not the 2 s safety re-read, must be what woke it: by the time A answered, the NOTIFY of
    // the completed notification (a wake carrying only the name) had reached it.
    let heardBefore = Number.POSITIVE_INFINITY;
    const waiting = getJobs(a, `idempotency_key=${job.idempotency_key}&wait=60s`).then((answer) => ({
      answer,
      notifiedBeforeAnswer: heard() > heardBefore,
    }));
    await wakeupsA.waiting(job.idempotency_key);
    heardBefore = heard();
    expect((await b.sender.post(notificationFor(job, "completed"))).status).toBe(200);
    const { answer, notifiedBeforeAnswer } = await waiting;
    expect(answer.body.data).toMatchObject({ status: "completed" });
    expect(notifiedBeforeAnswer).toBe(true);
  });

  it("deduplicates across instances: the same (job_id, status) to A and to B is stored once", async () => {
    const job = newJob();
    const notification = notificationFor(job, "completed");
    const answers = await Promise.all([a.sender.post(notification), b.sender.post(notification)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const duplicates = answers.map((answer) => (answer.body.data as { duplicate: boolean }).duplicate);
    expect(duplicates.sort()).toEqual([false, true]);
  });

  it("keeps order safety across instances: running stored by A after completed stored by B", async () => {
    const job = newJob();
    await b.sender.post(notificationFor(job, "completed"));
    await a.sender.post(notificationFor(job, "running"));
    const { body } = await getJobs(a, `idempotency_key=${job.idempotency_key}`);
    expect(body.data).toMatchObject({ status: "completed" });
  });
});
