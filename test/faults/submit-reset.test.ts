/**
 * Faults between the client and the service, through a TCP proxy on loopback (plain HTTP, so that the proxy
 * can tell the response from the request). The promise: a submission the service may have received is never
 * sent again under a new key, and the next apply finds it instead of running the change twice.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  NetworkError,
  RouterJobsClient,
  type RouterJobsClientOptions,
  TimeoutError,
} from "../../src/client/index.js";
import type { ApplyJob } from "../../src/contract/apply-job.js";
import { applyJob } from "../../src/deploy/apply/apply.js";
import { Journal } from "../../src/deploy/apply/journal.js";
import { declareJob } from "../helpers/declared-job.js";
import { FaultProxy } from "../helpers/fault-proxy.js";
import { ROUTER_A, ROUTER_A2, startTestService, type TestService, TOKEN_A } from "../service/harness.js";

describe("faults between the client and the service", () => {
  let service: TestService;
  let proxy: FaultProxy;
  let stateDir: string;

  beforeAll(async () => {
    service = await startTestService({}, undefined, { tls: undefined });
    const { port } = new URL(service.url);
    proxy = await FaultProxy.start({ host: "127.0.0.1", port: Number(port) });
    stateDir = await mkdtemp(join(tmpdir(), "rj-faults-"));
  });
  afterAll(async () => {
    await proxy?.close();
    await service?.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  /**
   * The request timeout of the tests that make one exchange outlast it: long enough that a plain exchange on
   * loopback fits with a second suite on the two cores, so only the faulty one times out.
   */
  const REQUEST_TIMEOUT_MS = 2000;
  const client = (options: Partial<RouterJobsClientOptions> = {}) =>
    new RouterJobsClient({
      baseUrl: `http://127.0.0.1:${proxy.port}`,
      token: TOKEN_A,
      budgetDir: stateDir,
      rateLimit: { count: 1000, windowMs: 1000 },
      ...options,
    });
  const jobsWithKey = async (routerId: string, key: string) =>
    (await service.jobs(routerId)).filter((job: { idempotency_key: string }) => job.idempotency_key === key);

  it("is not retried by the client; repeating it with the same key creates no second job", async () => {
    const api = client();
    const key = "0f0f0f0f-1111-4222-8333-444455556666";
    try {
      proxy.set({ resetOnResponse: true, times: 1 });
      const before = proxy.stats.connections;
      const failure = await api
        .submitJob(
          ROUTER_A,
          { description: "reset", script: "/system identity set name=reset" },
          { idempotencyKey: key },
        )
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(NetworkError);
      expect((failure as NetworkError).requestSent).toBe(true);
      // One connection: the client did not send the submission again on its own.
      expect(proxy.stats.connections - before).toBe(1);
      // The service did receive it; the same key again answers with that job's acknowledgement.
      expect(await jobsWithKey(ROUTER_A, key)).toHaveLength(1);
      const again = await api.submitJob(
        ROUTER_A,
        { description: "reset", script: "/system identity set name=reset" },
        { idempotencyKey: key },
      );
      expect(again.idempotencyKey).toBe(key);
      expect(await jobsWithKey(ROUTER_A, key)).toHaveLength(1);
      console.log(
        `reset after submit: ${proxy.stats.connections - before} connections (the reset one, then the repeat), ${proxy.stats.broken} broken, 1 job with the key, 0 duplicates`,
      );
    } finally {
      await api.close();
    }
  });

  it("is retried by the client when the connection was reset while connecting (the request provably never left)", async () => {
    const api = client();
    const key = "1f1f1f1f-1111-4222-8333-444455556666";
    try {
      proxy.set({ refuse: true, times: 2 });
      const before = proxy.stats.connections;
      const { ack } = await api.submitJob(
        ROUTER_A2,
        { description: "refused", script: "/system identity set name=refused" },
        { idempotencyKey: key },
      );
      expect(ack.idempotency_key).toBe(key);
      expect(proxy.stats.connections - before).toBe(3);
      expect(await jobsWithKey(ROUTER_A2, key)).toHaveLength(1);
    } finally {
      await api.close();
    }
  });

  it("retries a job-list read whose answer was cut short, and gets the whole list", async () => {
    const api = client();
    try {
      proxy.set({ truncateResponseAfterBytes: 40, times: 2 });
      const before = proxy.stats.broken;
      const jobs = await api.listJobs(ROUTER_A);
      expect(jobs.length).toBe((await service.jobs(ROUTER_A)).length);
      expect(proxy.stats.broken - before).toBe(2);
    } finally {
      await api.close();
    }
  });

  it("gives up on a submission swallowed by a black hole at the request timeout, without sending it again", async () => {
    const api = client({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const key = "2f2f2f2f-1111-4222-8333-444455556666";
    try {
      proxy.set({ blackhole: true, times: 1 });
      const before = proxy.stats.connections;
      const started = performance.now();
      const failure = await api
        .submitJob(ROUTER_A, { description: "swallowed", script: ":put swallowed" }, { idempotencyKey: key })
        .catch((error: unknown) => error);
      const waitedMs = performance.now() - started;
      expect(failure).toBeInstanceOf(TimeoutError);
      expect(failure).toMatchObject({ phase: "response", requestSent: true });
      expect(proxy.stats.connections - before).toBe(1);
      // The request never reached the service; repeating it with its key runs it once.
      expect(await jobsWithKey(ROUTER_A, key)).toHaveLength(0);
      const again = client();
      try {
        await again.submitJob(
          ROUTER_A,
          { description: "swallowed", script: ":put swallowed" },
          { idempotencyKey: key },
        );
      } finally {
        await again.close();
      }
      expect(await jobsWithKey(ROUTER_A, key)).toHaveLength(1);
      console.log(
        `black hole on submit: the client gave up after ${Math.round(waitedMs)} ms (request timeout ${REQUEST_TIMEOUT_MS} ms) on 1 connection; the repeat with the key made 1 job`,
      );
    } finally {
      await api.close();
    }
  });

  it("retries a job-list read whose answer is swallowed or held past the request timeout", async () => {
    const api = client({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
    try {
      const expected = (await service.jobs(ROUTER_A)).length;
      const timings: string[] = [];
      for (const fault of [{ blackhole: true }, { delayMs: REQUEST_TIMEOUT_MS + 1000 }]) {
        proxy.set({ ...fault, times: 1 });
        const before = { ...proxy.stats };
        const started = performance.now();
        expect(await api.listJobs(ROUTER_A)).toHaveLength(expected);
        const ms = Math.round(performance.now() - started);
        // The faulty exchange timed out (the only way past a black hole, and sooner than the held answer),
        // then one more went through untouched.
        expect(proxy.stats.exchanges - before.exchanges).toBe(2);
        timings.push(`${JSON.stringify(fault)} ${ms} ms`);
      }
      // A delay within the request timeout only slows the answer down (it is held both ways).
      proxy.set({ delayMs: 100, times: 1 });
      const before = { ...proxy.stats };
      const started = performance.now();
      expect(await api.listJobs(ROUTER_A)).toHaveLength(expected);
      const slowMs = Math.round(performance.now() - started);
      // The delay held the one exchange, which answered: no time-out, no retry.
      expect(proxy.stats.delayed - before.delayed).toBe(1);
      expect(proxy.stats.exchanges - before.exchanges).toBe(1);
      console.log(
        `list read through faults (request timeout ${REQUEST_TIMEOUT_MS} ms): ${timings.join(", ")}; delay 100 ms each way ${slowMs} ms`,
      );
    } finally {
      await api.close();
    }
  });

  it("leaves apply looking for its job by the attempt's marker, and waiting for it, without a second job", async () => {
    const job: ApplyJob = declareJob(ROUTER_A2, "faults/edge", {
      description: "apply through a reset",
      script: "/system identity set name=after-reset",
      makeBackup: true,
      express: true,
      waitFor: "poll",
      timeoutMs: 20_000,
    });
    const lines: string[] = [];
    const context = (api: RouterJobsClient) => ({
      client: api,
      journal: new Journal(stateDir),
      instanceId: "instance-1",
      write: (line: string) => lines.push(line),
    });
    const jobsBefore = (await service.jobs(ROUTER_A2)).length;
    const api = client();
    // The first exchange is apply's look at the job list; the second, the submission, loses its answer.
    const faults = [{}, { resetOnResponse: true }];
    proxy.set(() => faults.shift() ?? {});
    try {
      // WHEN the service takes the submission and the connection is reset before the acknowledgement arrives
      const result = await applyJob(job, context(api));
      // THEN apply asked the job list for its attempt instead of sending it again, and waited for that job
      expect(result.outcome).toBe("completed");
      expect(lines.some((line) => line.includes("may have reached the service"))).toBe(true);
      expect(await service.jobs(ROUTER_A2)).toHaveLength(jobsBefore + 1);
    } finally {
      await api.close();
    }
  });
});
