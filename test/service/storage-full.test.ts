/**
 * Issue 21, item 9: a full disk answered 500 while `/healthz` stayed 200. Now a write refused for lack of space
 * answers 503 with Retry-After (the client retries; nothing was acknowledged), `/healthz` says why, and every
 * submission that was acknowledged is still there once space is back. The disk is a real tmpfs, filled for real.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountSmallDisk, type SmallDisk, smallDiskAvailability } from "../helpers/small-disk.js";
import { ROUTER_A, startTestService, type TestService } from "./harness.js";

const disk = smallDiskAvailability();

describe.skipIf(!disk.available)("a service whose disk fills up", () => {
  let small: SmallDisk;
  let service: TestService;
  beforeAll(async () => {
    small = mountSmallDisk(64);
    service = await startTestService({
      database: join(small.path, "pglite"),
      dataDir: small.path,
      rateLimit: { count: 100_000, windowMs: 60_000 },
      // The scheduler would run the jobs (and write) behind the test's back: it waits for the test.
      tickMs: 3_600_000,
    });
  });
  afterAll(async () => {
    await service?.close();
    small?.free();
    small?.unmount();
  });

  const job = (n: number) => ({ description: `job ${n}`, script: `/log info "${"x".repeat(1800)}"` });

  it("answers 503 with Retry-After, reports it at /healthz, and loses nothing it acknowledged", async () => {
    expect((await service.submit(ROUTER_A, job(0))).status).toBe(202);
    let acknowledged = 1;

    // WHEN the disk fills up
    small.fill();
    let refused: Awaited<ReturnType<TestService["submit"]>> | undefined;
    const statuses = new Set<number>();
    for (let n = 1; n <= 2_000 && refused === undefined; n++) {
      const answer = await service.submit(ROUTER_A, job(n));
      statuses.add(answer.status);
      if (answer.status === 202) acknowledged++;
      else refused = answer;
    }

    // THEN a submission is refused as "come back later", never as an internal error
    expect(refused?.status).toBe(503);
    expect([...statuses].sort()).toEqual([202, 503]);
    expect(refused?.headers["retry-after"]).toBe("30");
    expect(refused?.body.error).toMatchObject({
      code: "service_unavailable",
      message: expect.stringMatching(/storage is full.*nothing of this request was stored/),
    });
    // AND /healthz says so, without naming a file of the data directory
    const health = await service.call("GET", "/healthz", { token: null });
    expect(health.status).toBe(503);
    expect(health.body.error.message).toMatch(/storage is full/);
    expect(health.body.error.message).not.toContain(small.path);

    // WHEN space comes back
    small.free();
    // THEN the next submission is accepted and every acknowledged job is listed (/healthz reports the full
    // disk for 30 s after the last refusal: test/service/database/storage-full.test.ts)
    expect((await service.submit(ROUTER_A, job(-1))).status).toBe(202);
    acknowledged++;
    const listed = await service.jobs(ROUTER_A);
    expect(listed).toHaveLength(acknowledged);
  });
});
