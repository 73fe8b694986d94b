import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  type TestService,
  TOKEN_A2,
  TOKEN_B,
} from "./harness.js";

const job = { description: "idempotent", script: "/system identity set name=x" };

describe("Idempotency-Key", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
  });
  afterAll(async () => svc?.close());

  const count = async (routerId: string, token?: string) => (await svc.jobs(routerId, token)).length;

  it("the same key and body returns the original acknowledgement and creates no job", async () => {
    const key = randomUUID();
    const first = await svc.submit(ROUTER_A, job, undefined, { "idempotency-key": key });
    const before = await count(ROUTER_A);
    const second = await svc.submit(ROUTER_A, job, undefined, { "idempotency-key": key });
    expect(second.status).toBe(202);
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.data.idempotency_key).toBe(key);
    expect(second.headers["idempotent-replayed"]).toBe("true");
    expect(await count(ROUTER_A)).toBe(before);
  });

  it("X-Idempotency-Key works the same, and the key is shared across the team's tokens", async () => {
    const key = randomUUID();
    const first = await svc.submit(ROUTER_A, job, undefined, { "x-idempotency-key": key });
    const second = await svc.submit(ROUTER_A, job, TOKEN_A2, { "idempotency-key": key.toUpperCase() });
    expect(second.body.data.request_id).toBe(first.body.data.request_id);
  });

  it("two different keys in Idempotency-Key and X-Idempotency-Key are refused with 400 naming both; the same key in both is one", async () => {
    const [plain, prefixed] = [randomUUID(), randomUUID()];
    const before = await count(ROUTER_A);
    const refused = await svc.submit(ROUTER_A, job, undefined, {
      "idempotency-key": plain,
      "x-idempotency-key": prefixed,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("bad_request");
    expect(refused.body.error.message).toContain(`Idempotency-Key (${plain})`);
    expect(refused.body.error.message).toContain(`X-Idempotency-Key (${prefixed})`);
    expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toEqual([
      "Idempotency-Key",
      "X-Idempotency-Key",
    ]);
    expect(await count(ROUTER_A)).toBe(before);
    // The same key in both (as the client's profiles send it), in either case: one key.
    const both = await svc.submit(ROUTER_A, job, undefined, {
      "idempotency-key": plain,
      "x-idempotency-key": plain.toUpperCase(),
    });
    expect(both.status).toBe(202);
    expect(both.body.data.idempotency_key).toBe(plain);
  });

  it("the same key with a different body (or router) answers 409", async () => {
    const key = randomUUID();
    await svc.submit(ROUTER_A, job, undefined, { "idempotency-key": key });
    const before = await count(ROUTER_A);
    const changed = await svc.submit(ROUTER_A, { ...job, script: "/system identity set name=y" }, undefined, {
      "idempotency-key": key,
    });
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe("idempotency_conflict");
    const otherRouter = await svc.submit(ROUTER_A2, job, undefined, { "idempotency-key": key });
    expect(otherRouter.status).toBe(409);
    expect(await count(ROUTER_A)).toBe(before);
  });

  it("another team may use the same key independently", async () => {
    const key = randomUUID();
    const mine = await svc.submit(ROUTER_A, job, undefined, { "idempotency-key": key });
    const theirs = await svc.submit(ROUTER_B, job, TOKEN_B, { "idempotency-key": key });
    expect(theirs.status).toBe(202);
    expect(theirs.body.data.request_id).not.toBe(mine.body.data.request_id);
  });

  it("without a key the service generates one per request", async () => {
    const first = await svc.submit(ROUTER_A, job);
    const second = await svc.submit(ROUTER_A, job);
    expect(first.body.data.idempotency_key).not.toBe(second.body.data.idempotency_key);
  });

  it("a malformed key is a 422 naming the header", async () => {
    const answer = await svc.submit(ROUTER_A, job, undefined, { "idempotency-key": "not-a-uuid" });
    expect(answer.status).toBe(422);
    expect(answer.body.error.details[0].field).toBe("idempotency-key");
  });

  it("concurrent duplicates create exactly one job", async () => {
    const key = randomUUID();
    const before = await count(ROUTER_A2);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => svc.submit(ROUTER_A2, job, undefined, { "idempotency-key": key })),
    );
    expect(answers.every((answer) => answer.status === 202)).toBe(true);
    expect(new Set(answers.map((answer) => answer.body.data.request_id)).size).toBe(1);
    expect(await count(ROUTER_A2)).toBe(before + 1);
    // seq_id stays dense: replays give their sequence number back.
    const next = await svc.submit(ROUTER_A2, job);
    const list = await svc.jobs(ROUTER_A2);
    expect(list.find((item) => item.idempotency_key === next.body.data.idempotency_key)?.seq_id).toBe(
      before + 2,
    );
  });
});

describe("Idempotency-Key expiry", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
  });
  afterAll(async () => svc?.close());

  it("after 24 h the key is forgotten and may name a new job", async () => {
    const key = randomUUID();
    const first = await svc.submit(ROUTER_A, job, undefined, { "idempotency-key": key });
    await svc.service.app.db.query(
      "UPDATE idempotency_keys SET created_at = created_at - interval '25 hours' WHERE idempotency_key = $1",
      [key],
    );
    const second = await svc.submit(ROUTER_A, { ...job, script: ":put other" }, undefined, {
      "idempotency-key": key,
    });
    expect(second.status).toBe(202);
    expect(second.body.data.request_id).not.toBe(first.body.data.request_id);
    await svc.service.app.scheduler.housekeeping(new Date(Date.now() + 25 * 3_600_000));
    const { rows } = await svc.service.app.db.query(
      "SELECT 1 FROM idempotency_keys WHERE idempotency_key = $1",
      [key],
    );
    expect(rows).toHaveLength(0);
  });
});
