/**
 * Issue 21, item 9, for the receiver: a notification it cannot store for lack of space answers 503 with
 * Retry-After (the service retries it later: nothing acknowledged is lost), and `/healthz` reports the full
 * disk. The disk is a real tmpfs, filled for real.
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountSmallDisk, type SmallDisk, smallDiskAvailability } from "../../helpers/small-disk.js";
import { getJobs, newJob, notificationFor, startTestReceiver } from "./helpers.js";

const disk = smallDiskAvailability();

describe.skipIf(!disk.available)("a receiver whose disk fills up", () => {
  let small: SmallDisk;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  beforeAll(async () => {
    small = mountSmallDisk(64);
    receiver = await startTestReceiver(small.path, { logger: false });
  });
  afterAll(async () => {
    await receiver?.close();
    small?.free();
    small?.unmount();
  });

  it("refuses with 503, reports it at /healthz, and keeps what it acknowledged", async () => {
    const jobs: string[] = [];
    const post = async (description: string) => {
      const job = newJob();
      const signed = receiver.sender.signed(
        notificationFor(job, "completed", { description: description.padEnd(1900, ".") }),
      );
      const answer = await receiver.sender.post(signed.body, { headers: signed.headers });
      if (answer.status < 300) jobs.push(job.job_id);
      return answer;
    };
    expect((await post("before")).status).toBeLessThan(300);

    // WHEN the disk fills up
    small.fill();
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    for (let n = 0; n < 2_000 && refused === undefined; n++) {
      const answer = await post(`during ${n}`);
      if (answer.status >= 300) refused = answer;
    }

    // THEN the notification is refused as "later", and /healthz says why
    expect(refused?.status).toBe(503);
    expect(refused?.body.error?.message).toMatch(/storage is full/);
    const health = await request(`${receiver.url}/healthz`, { dispatcher: receiver.sender.dispatcher });
    expect(health.statusCode).toBe(503);
    expect(await health.body.text()).toMatch(/storage is full/);

    // WHEN space comes back THEN the retried notification is stored and every acknowledged one is there
    small.free();
    expect((await post("after")).status).toBeLessThan(300);
    for (const jobId of jobs) {
      const answer = await getJobs(receiver, `job_id=${jobId}`);
      expect(answer.status, jobId).toBe(200);
    }
  });
});
