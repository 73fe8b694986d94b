import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_MAX_BYTES } from "../../src/contract/limits.js";
import {
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  type TestService,
  TOKEN_A,
  TOKEN_B,
} from "./harness.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
const job = { description: "add an address", script: "/ip address add address=10.0.0.1/24 interface=ether1" };

describe("service HTTP API (contract rows)", () => {
  let svc: TestService;
  beforeAll(async () => {
    // A tick far away: queued jobs stay pending while this file inspects them.
    svc = await startTestService({ tickMs: 60_000 });
  });
  afterAll(async () => svc?.close());

  it("GET /healthz answers 200 without a token", async () => {
    const answer = await svc.call("GET", "/healthz", { token: null });
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("success");
  });

  it("POST /api/asynchronous answers 202 with the acknowledgement", async () => {
    const answer = await svc.submit(ROUTER_A, { ...job, notify_url: "https://example.test/hook" });
    expect(answer.status).toBe(202);
    expect(answer.body.status).toBe("success");
    const ack = answer.body.data;
    expect(ack.idempotency_key).toMatch(UUID);
    expect(ack.request_id).toMatch(UUID);
    expect(ack.target).toBe(ROUTER_A);
    expect(ack.notify_url).toBe("https://example.test/hook");
    expect(ack.date).toMatch(OFFSET_TIME);
    expect(answer.headers["x-request-id"]).toMatch(UUID);
    // Our extension: the job made, as the job list names it, so that `routerjobs submit` can say which it is.
    const [listed] = (await svc.call("GET", `/api/routers/${ROUTER_A}/jobs`)).body.data;
    expect(listed.idempotency_key).toBe(ack.idempotency_key);
    expect({ job_id: ack.job_id, seq_id: ack.seq_id }).toEqual({ job_id: listed.id, seq_id: listed.seq_id });
  });

  it("GET /api/routers (extension) lists the routers of the token's team by name, no other team's", async () => {
    const mine = await svc.call("GET", "/api/routers");
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({
      status: "success",
      data: [
        { id: ROUTER_A, name: "edge-a", online: true },
        { id: ROUTER_A2, name: "edge-a2", online: true },
      ],
    });
    const theirs = await svc.call("GET", "/api/routers", { token: TOKEN_B });
    expect(theirs.body.data).toEqual([{ id: ROUTER_B, name: "edge-b", online: true }]);
    expect((await svc.call("GET", "/api/routers", { token: null })).status).toBe(401);
    expect((await svc.call("POST", "/api/routers", { body: {} })).status).toBe(405);
  });

  it("GET jobs lists every job of the router, newest first, with the spec's fields and created_at", async () => {
    const accepted = await svc.submit(ROUTER_A2, job);
    await svc.submit(ROUTER_A2, { ...job, description: "second" });
    const answer = await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs`);
    expect(answer.status).toBe(200);
    const [second, first] = answer.body.data;
    expect(second).toMatchObject({ seq_id: 2, description: "second", status: "pending" });
    expect(first).toMatchObject({
      seq_id: 1,
      status: "pending",
      make_backup: false,
      express_execute: false,
      needs_acknowledgement: true,
      started_at: null,
      completed_at: null,
      failed_at: null,
      deleted_at: null,
      error: null,
      // The project's extension: when the service accepted the job, as its acknowledgement dated it.
      created_at: accepted.body.data.date,
    });
    expect(first.id).toMatch(UUID);
    expect(typeof first.token).toBe("string");
  });

  describe("401 unauthenticated with WWW-Authenticate: Bearer", () => {
    const cases: [string, Record<string, string>][] = [
      ["no header", {}],
      ["not Bearer", { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` }],
      ["malformed token", { authorization: "Bearer abc" }],
      ["short secret", { authorization: `Bearer ${TOKEN_A.slice(0, -1)}` }],
      ["unknown token", { authorization: `Bearer ${TOKEN_A.slice(0, -2)}zz` }],
    ];
    for (const [name, headers] of cases) {
      it(name, async () => {
        const answer = await svc.call("GET", `/api/routers/${ROUTER_A}/jobs`, { token: null, headers });
        expect(answer.status).toBe(401);
        expect(answer.body.error.code).toBe("unauthenticated");
        expect(answer.headers["www-authenticate"]).toMatch(/^Bearer/);
        expect(JSON.stringify(answer.body)).not.toContain(TOKEN_A.split(":")[2]);
      });
    }
  });

  it("404 router_not_found: unknown router and another team's router answer the same", async () => {
    const unknown = await svc.call("GET", "/api/routers/ffffffff-0000-4000-8000-000000000000/jobs");
    const foreign = await svc.call("GET", `/api/routers/${ROUTER_B}/jobs`);
    for (const answer of [unknown, foreign]) {
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("router_not_found");
    }
    expect(foreign.body.error.message.replace(ROUTER_B, "X")).toBe(
      unknown.body.error.message.replace("ffffffff-0000-4000-8000-000000000000", "X"),
    );
    const submit = await svc.submit(ROUTER_B, job, TOKEN_A);
    expect(submit.status).toBe(404);
    const sync = await svc.call("POST", `/api/synchronous/${ROUTER_B}`, {
      body: { command: "/system/identity/print" },
    });
    expect(sync.status).toBe(404);
    // And team B sees nothing of team A's jobs.
    expect((await svc.call("GET", `/api/routers/${ROUTER_A}/jobs`, { token: TOKEN_B })).status).toBe(404);
  });

  it("404 not_found for an unknown path, 405 for a known path with the wrong method", async () => {
    const unknown = await svc.call("GET", "/api/nothing");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    const wrong = await svc.call("DELETE", `/api/asynchronous/${ROUTER_A}`);
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.code).toBe("method_not_allowed");
    expect(wrong.headers.allow).toBe("POST");
    expect((await svc.call("POST", `/api/routers/${ROUTER_A}/jobs`, { body: {} })).status).toBe(405);
  });

  it("400 invalid_json for a body that is not JSON", async () => {
    for (const raw of ["{", "not json", '{"description": "x",}']) {
      const answer = await svc.call("POST", `/api/asynchronous/${ROUTER_A}`, { raw });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("invalid_json");
    }
  });

  it("413 payload_too_large above 64 KiB", async () => {
    const raw = JSON.stringify({ description: "x", script: "y".repeat(BODY_MAX_BYTES) });
    const answer = await svc.call("POST", `/api/asynchronous/${ROUTER_A}`, { raw });
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe("payload_too_large");
  });

  it("415 unsupported_media_type for a body that is not application/json", async () => {
    const answer = await svc.call("POST", `/api/asynchronous/${ROUTER_A}`, {
      raw: "description=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(answer.status).toBe(415);
    expect(answer.body.error.code).toBe("unsupported_media_type");
  });

  it("422 invalid_request names each field and its limit", async () => {
    const answer = await svc.submit(ROUTER_A, {
      description: "d".repeat(101),
      script: "s".repeat(2001),
      make_backup: "true",
      notify_url: "http://insecure.test/",
      colour: "blue",
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe("invalid_request");
    const details = Object.fromEntries(
      answer.body.error.details.map((detail: { field: string; message: string }) => [
        detail.field,
        detail.message,
      ]),
    );
    expect(details.description).toMatch(/at most 100 characters \(got 101\)/);
    expect(details.script).toMatch(/at most 2000 characters on the spec API \(got 2001\)/);
    expect(details.make_backup).toMatch(/boolean/);
    expect(details.notify_url).toMatch(/https/);
    expect(details.colour).toMatch(/unknown field/);
    const missing = await svc.submit(ROUTER_A, {});
    expect(missing.body.error.details.map((detail: { field: string }) => detail.field).sort()).toEqual([
      "description",
      "script",
    ]);
  });

  it("a missing boolean takes the spec's default", async () => {
    const ack = (await svc.submit(ROUTER_A2, { description: "defaults", script: ":put 1" })).body.data;
    const listed = (await svc.jobs(ROUTER_A2)).find((item) => item.idempotency_key === ack.idempotency_key);
    expect(listed).toMatchObject({ make_backup: false, express_execute: false, needs_acknowledgement: true });
  });

  it("a rejected request creates no job", async () => {
    const before = (await svc.jobs(ROUTER_A)).length;
    await svc.submit(ROUTER_A, { description: "x" });
    await svc.call("POST", `/api/asynchronous/${ROUTER_A}`, { raw: "{" });
    await svc.submit(ROUTER_A, job, "bad-token");
    expect((await svc.jobs(ROUTER_A)).length).toBe(before);
  });

  it("the synchronous endpoint returns the router's records (200)", async () => {
    const answer = await svc.call("POST", `/api/synchronous/${ROUTER_A}`, {
      body: { command: "/system/identity/print" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("success");
    expect(Array.isArray(answer.body.data)).toBe(true);
    for (const record of answer.body.data) {
      for (const value of Object.values(record)) expect(typeof value).toBe("string");
    }
  });

  it("400 command_failed carries the router's own text", async () => {
    const answer = await svc.call("POST", `/api/synchronous/${ROUTER_A}`, {
      body: { command: "/no/such/thing" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("command_failed");
    expect(answer.body.error.message.length).toBeGreaterThan(0);
  });

  it("every response carries x-request-id, errors repeat it in the body", async () => {
    const answer = await svc.call("GET", "/api/nothing", { token: null });
    expect(answer.headers["x-request-id"]).toMatch(UUID);
    expect(answer.body.error.request_id).toBe(answer.headers["x-request-id"]);
  });
});
