import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { HttpsSink } from "../helpers/https-sink.js";
import {
  ADMIN_TOKEN,
  CUSTOMER_A,
  deliveredNotifications,
  eventually,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  SIGNING_SECRET,
  savedIdentity,
  schedulerLookedAt,
  startTestService,
  type TestService,
  TOKEN_B,
} from "./harness.js";

const ok = { description: "ok", script: "/system identity set name=edge" };
const failing = { description: "fails", script: ":put start; bad command here" };

describe("job lifecycle and notifications", () => {
  let sink: HttpsSink;
  let svc: TestService;
  let hook: string;
  beforeAll(async () => {
    sink = await HttpsSink.start();
    svc = await startTestService({ notifyCa: sink.ca, tickMs: 50 });
    hook = `${sink.url}/hook/secret-path`;
  });
  afterAll(async () => {
    await svc?.close();
    await sink?.close();
  });

  const jobOf = async (routerId: string, key: string, token?: string) =>
    (await svc.jobs(routerId, token)).find((item) => item.idempotency_key === key);
  const waitForStatus = (jobId: string, status: string) =>
    sink.waitFor((received) =>
      received.some((item) => item.body.job_id === jobId && item.body.status === status),
    );

  it("a job that succeeds: loaded, running, completed, in order, with the payload fields", async () => {
    const ack = (await svc.submit(ROUTER_A, { ...ok, express_execute: true, notify_url: hook })).body.data;
    const job = await eventually(async () => {
      const item = await jobOf(ROUTER_A, ack.idempotency_key);
      return item?.status === "completed" ? item : undefined;
    });
    await waitForStatus(job.id, "completed");
    expect(sink.statuses(job.id)).toEqual(["loaded", "running", "completed"]);
    const completed = sink.received.find(
      (item) => item.body.job_id === job.id && item.body.status === "completed",
    );
    expect(completed?.path).toBe("/hook/secret-path");
    expect(completed?.body).toMatchObject({
      job_id: job.id,
      customer_id: CUSTOMER_A,
      description: "ok",
      router_id: ROUTER_A,
      idempotency_key: ack.idempotency_key,
      express_execute: true,
      needs_acknowledgement: true,
      make_backup: false,
      seq_id: job.seq_id,
      failed_at: null,
      deleted_at: null,
      error: null,
    });
    expect(completed?.body.started_at).toEqual(job.started_at);
    expect(completed?.body.completed_at).toEqual(job.completed_at);
    expect(completed?.headers["webhook-signature"]).toBeUndefined();
  });

  it("a failing script: failed with the router's error text and line", async () => {
    const ack = (await svc.submit(ROUTER_A, { ...failing, express_execute: true, notify_url: hook })).body
      .data;
    const job = await eventually(async () => {
      const item = await jobOf(ROUTER_A, ack.idempotency_key);
      return item?.status === "failed" ? item : undefined;
    });
    expect(job.error).toMatch(/line \d+/);
    expect(job.failed_at).not.toBeNull();
    expect(job.completed_at).toBeNull();
    await waitForStatus(job.id, "failed");
    expect(sink.statuses(job.id)).toEqual(["loaded", "running", "failed"]);
    expect(
      sink.received.find((item) => item.body.job_id === job.id && item.body.status === "failed")?.body.error,
    ).toBe(job.error);
  });

  it("a script that puts a NUL byte into the router's configuration completes, and the state keeps it", async () => {
    // RouterOS strings are bytes: `\00` is a valid escape. jsonb refuses NUL, so the saved state encodes it.
    const script = '/system identity set name="a\\00b"';
    const ack = (await svc.submit(ROUTER_A2, { description: "nul", script, express_execute: true })).body
      .data;
    const job = await eventually(async () => {
      const item = await jobOf(ROUTER_A2, ack.idempotency_key);
      return item?.status === "completed" ? item : undefined;
    });
    expect(job.error).toBeNull();
    // The saved state, attached to a fresh router as another instance or a restart would, holds the same name.
    expect(await savedIdentity(svc.service.app.db, ROUTER_A2)).toBe("a\u0000b");
  });

  it("needs_acknowledgement false: completed at submission, errors not reported, script still run", async () => {
    const ack = (
      await svc.submit(ROUTER_A, {
        ...failing,
        needs_acknowledgement: false,
        express_execute: true,
        notify_url: hook,
      })
    ).body.data;
    const job = await jobOf(ROUTER_A, ack.idempotency_key);
    expect(job.status).toBe("completed");
    expect(job.completed_at).toBe(ack.date);
    // The scheduler still delivers the script: once it has (execution done), the job is still completed, with
    // no error, and the outbox holds the one notification, delivered.
    await eventually(
      async () => {
        const { rows } = await svc.service.app.db.query<{ execution: string }>(
          "SELECT execution FROM jobs WHERE id = $1",
          [job.id],
        );
        return rows[0]?.execution === "done" ? true : undefined;
      },
      10_000,
      `job ${job.id} to be run by the scheduler`,
    );
    expect(await jobOf(ROUTER_A, ack.idempotency_key)).toMatchObject({ status: "completed", error: null });
    expect(await deliveredNotifications(svc, job.id)).toEqual(["completed"]);
    expect(sink.statuses(job.id)).toEqual(["completed"]);
  });

  it("without express execution the job waits for the scheduler tick", async () => {
    const ack = (await svc.submit(ROUTER_A2, { ...ok, notify_url: hook })).body.data;
    const job = await eventually(async () => {
      const item = await jobOf(ROUTER_A2, ack.idempotency_key);
      return item?.status === "completed" ? item : undefined;
    });
    await waitForStatus(job.id, "completed");
    expect(sink.statuses(job.id)).toEqual(["loaded", "running", "completed"]);
  });

  it("jobs of one router run one at a time in seq_id order", async () => {
    const acks = [];
    for (let index = 0; index < 5; index++) {
      acks.push((await svc.submit(ROUTER_A2, { ...ok, description: `queued ${index}` })).body.data);
    }
    const jobs = await eventually(async () => {
      const items = (await svc.jobs(ROUTER_A2)).filter((item) => item.description.startsWith("queued"));
      return items.every((item) => item.status === "completed") ? items : undefined;
    });
    const bySeq = [...jobs].sort((a, b) => a.seq_id - b.seq_id);
    for (let index = 1; index < bySeq.length; index++) {
      expect(Date.parse(bySeq[index].started_at)).toBeGreaterThanOrEqual(
        Date.parse(bySeq[index - 1].completed_at),
      );
    }
  });

  it("an offline router keeps the job pending until it is online again", async () => {
    await svc.service.app.inject({
      method: "POST",
      url: `/admin/routers/${ROUTER_A2}/offline`,
      headers: admin(),
    });
    const ack = (await svc.submit(ROUTER_A2, { ...ok, express_execute: true, notify_url: hook })).body.data;
    await schedulerLookedAt(svc, ROUTER_A2);
    expect((await jobOf(ROUTER_A2, ack.idempotency_key)).status).toBe("pending");
    const sync = await svc.call("POST", `/api/synchronous/${ROUTER_A2}`, {
      body: { command: "/system/identity/print" },
    });
    expect(sync.status).toBe(502);
    expect(sync.body.error.code).toBe("router_unreachable");
    await svc.service.app.inject({
      method: "POST",
      url: `/admin/routers/${ROUTER_A2}/online`,
      headers: admin(),
    });
    const job = await eventually(async () => {
      const item = await jobOf(ROUTER_A2, ack.idempotency_key);
      return item?.status === "completed" ? item : undefined;
    });
    await waitForStatus(job.id, "completed");
  });

  it("an operator deletes a pending job: deleted, with its notification, and it never runs", async () => {
    await svc.service.app.inject({
      method: "POST",
      url: `/admin/routers/${ROUTER_A2}/offline`,
      headers: admin(),
    });
    const ack = (await svc.submit(ROUTER_A2, { ...ok, notify_url: hook })).body.data;
    const pending = await jobOf(ROUTER_A2, ack.idempotency_key);
    const answer = await svc.service.app.inject({
      method: "DELETE",
      url: `/admin/jobs/${pending.id}`,
      headers: admin(),
    });
    expect(answer.statusCode).toBe(200);
    await svc.service.app.inject({
      method: "POST",
      url: `/admin/routers/${ROUTER_A2}/online`,
      headers: admin(),
    });
    await waitForStatus(pending.id, "deleted");
    // A job queued after it runs once the router is online: the scheduler has had its chance to run the
    // deleted job, which comes first in the router's queue, and left it alone.
    const later = (
      await svc.submit(ROUTER_A2, { ...ok, description: "after the deleted one", express_execute: true })
    ).body.data;
    await eventually(async () =>
      (await jobOf(ROUTER_A2, later.idempotency_key))?.status === "completed" ? true : undefined,
    );
    expect(await jobOf(ROUTER_A2, ack.idempotency_key)).toMatchObject({
      status: "deleted",
      started_at: null,
    });
    expect(await deliveredNotifications(svc, pending.id)).toEqual(["deleted"]);
    expect(sink.statuses(pending.id)).toEqual(["deleted"]);
    const again = await svc.service.app.inject({
      method: "DELETE",
      url: `/admin/jobs/${pending.id}`,
      headers: admin(),
    });
    expect(again.statusCode).toBe(404);
  });

  it("make_backup takes a backup before the script, and a failed script leaves it", async () => {
    const ack = (await svc.submit(ROUTER_A, { ...failing, make_backup: true, express_execute: true })).body
      .data;
    const job = await eventually(async () => {
      const item = await jobOf(ROUTER_A, ack.idempotency_key);
      return item?.status === "failed" ? item : undefined;
    });
    const { rows } = await svc.service.app.db.query<{ backup_name: string | null }>(
      "SELECT backup_name FROM jobs WHERE id = $1",
      [job.id],
    );
    expect(rows[0]?.backup_name).toBeTruthy();
    expect(JSON.stringify(svc.backend.snapshot?.(ROUTER_A))).toContain(rows[0]?.backup_name as string);
  });

  it("notifications are retried after a failure and stay in order", async () => {
    const before = sink.attempts.length;
    sink.failNext(2);
    const ack = (await svc.submit(ROUTER_A, { ...ok, express_execute: true, notify_url: hook })).body.data;
    const job = await eventually(async () => jobOf(ROUTER_A, ack.idempotency_key));
    await waitForStatus(job.id, "completed");
    expect(sink.statuses(job.id)).toEqual(["loaded", "running", "completed"]);
    expect(sink.attempts.slice(before).filter((attempt) => attempt.status === 503).length).toBe(2);
  });

  it("a team with a signing secret gets Standard Webhooks signatures", async () => {
    const ack = (await svc.submit(ROUTER_B, { ...ok, express_execute: true, notify_url: hook }, TOKEN_B)).body
      .data;
    const job = await eventually(async () => jobOf(ROUTER_B, ack.idempotency_key, TOKEN_B));
    await waitForStatus(job.id, "completed");
    for (const item of sink.received.filter((entry) => entry.body.job_id === job.id)) {
      const id = String(item.headers["webhook-id"]);
      const timestamp = String(item.headers["webhook-timestamp"]);
      const key = Buffer.from(SIGNING_SECRET.slice("whsec_".length), "base64");
      const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${item.raw}`).digest("base64");
      expect(item.headers["webhook-signature"]).toBe(`v1,${expected}`);
      expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(60);
    }
  });

  it("removing a router deletes its open jobs and it disappears from the API", async () => {
    await svc.service.app.inject({
      method: "POST",
      url: `/admin/routers/${ROUTER_A2}/offline`,
      headers: admin(),
    });
    const ack = (await svc.submit(ROUTER_A2, { ...ok, notify_url: hook })).body.data;
    const pending = await jobOf(ROUTER_A2, ack.idempotency_key);
    const answer = await svc.service.app.inject({
      method: "DELETE",
      url: `/admin/routers/${ROUTER_A2}`,
      headers: admin(),
    });
    expect(answer.json().data.deleted_jobs).toBe(1);
    await waitForStatus(pending.id, "deleted");
    expect((await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs`)).status).toBe(404);
  });

  function admin() {
    return { authorization: `Bearer ${ADMIN_TOKEN}` };
  }
});

describe("a router state the database cannot take", () => {
  /** Test double: a router whose state cannot be written (a BigInt has no JSON form), as a refusing database. */
  class UnsavableBackend extends SimulatedBackend {
    override snapshot(routerId: string): ReturnType<SimulatedBackend["snapshot"]> {
      return { ...super.snapshot(routerId), unsavable: 1n } as ReturnType<SimulatedBackend["snapshot"]>;
    }
  }
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({}, new UnsavableBackend());
  });
  afterAll(async () => svc?.close());

  it("still ends the job with the script's outcome, and the router's next job runs", async () => {
    const keys: string[] = [];
    for (const name of ["first", "second"]) {
      const script = `/system identity set name=${name}`;
      keys.push(
        (await svc.submit(ROUTER_A, { description: name, script, express_execute: true })).body.data
          .idempotency_key,
      );
    }
    const jobs = await eventually(async () => {
      const listed = (await svc.jobs(ROUTER_A)).filter((item) => keys.includes(item.idempotency_key));
      return listed.length === 2 && listed.every((item) => item.status === "completed") ? listed : undefined;
    });
    expect(jobs.map((item) => item.error)).toEqual([null, null]);
  });
});
