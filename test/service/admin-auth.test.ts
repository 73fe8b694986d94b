/**
 * Who may call what. The admin API (/admin/*) answers the admin token from loopback only: a team's API token,
 * no token or a near miss gets 401 and changes nothing. And one team's token reaches nothing of another team
 * through the public API (api.test.ts covers the job list; this file the rest).
 */
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  type Answer,
  type Loose,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  TEAM_A,
  TEAM_B,
  type TestService,
  TOKEN_A,
  TOKEN_A2,
  TOKEN_B,
} from "./harness.js";

const NEW_TEAM = "f0000000-0000-4000-8000-000000000001";
const NEW_ROUTER = "f1000000-0000-4000-8000-000000000001";
const NEW_ROUTER_2 = "f2000000-0000-4000-8000-000000000002";
const NEW_ROUTER_3 = "f3000000-0000-4000-8000-000000000003";
const DEVICE = { host: "192.0.2.1", user: "u", password: "device-password", plaintext: true };
const NEW_TOKEN = `ff000000-0000-4000-8000-000000000001:${NEW_TEAM}:${"F0f1F2f3F4".repeat(6)}ff`;
const UNKNOWN_ROUTER = "ffffffff-0000-4000-8000-000000000000";
const job = { description: "identity", script: "/system identity set name=changed" };

type Method = "GET" | "POST" | "DELETE";

/** Every admin route, each with a request that would change something if it were accepted. */
function adminRoutes(pendingJobId: string): [Method, string, unknown?][] {
  return [
    ["GET", "/admin/status"],
    ["POST", "/admin/tokens", { team_id: NEW_TEAM }],
    ["POST", "/admin/routers", { team_id: TEAM_A, name: "intruder", id: NEW_ROUTER }],
    ["POST", "/admin/routers", { team_id: TEAM_A, name: "device", id: NEW_ROUTER_3, device: DEVICE }],
    ["GET", `/admin/routers/${NEW_ROUTER_3}`],
    ["POST", "/admin/router-key/reseal"],
    ["DELETE", `/admin/routers/${NEW_ROUTER_3}/device`],
    [
      "POST",
      "/admin/seed",
      { teams: [{ id: NEW_TEAM, tokens: [NEW_TOKEN], routers: [{ id: NEW_ROUTER_2, name: "x" }] }] },
    ],
    ["POST", `/admin/routers/${ROUTER_A}/offline`],
    ["POST", `/admin/routers/${ROUTER_A2}/online`],
    ["DELETE", `/admin/jobs/${pendingJobId}`],
    ["DELETE", `/admin/tokens/${TOKEN_A2.split(":")[0]}`],
    ["DELETE", `/admin/routers/${ROUTER_A}`],
  ];
}

/** Everything an admin call could change, as rows. */
async function snapshot(svc: TestService): Promise<string> {
  const tables = ["teams", "tokens", "routers", "jobs", "idempotency_keys", "outbox"];
  const rows = await Promise.all(
    tables.map(async (table) => (await svc.service.app.db.query(`SELECT * FROM ${table} ORDER BY 1`)).rows),
  );
  return JSON.stringify(rows);
}

describe("the admin API refuses every caller but the operator", () => {
  let svc: TestService;
  let pendingJobId: string;
  beforeAll(async () => {
    // A tick far away: the job stays pending, so that deleting it would show.
    svc = await startTestService({ tickMs: 60_000 });
    const offline = await svc.call("POST", `/admin/routers/${ROUTER_A2}/offline`, { token: ADMIN_TOKEN });
    expect(offline.status).toBe(200);
    expect((await svc.submit(ROUTER_A, job)).status).toBe(202);
    pendingJobId = (await svc.jobs(ROUTER_A))[0].id;
  });
  afterAll(async () => svc?.close());

  const credentials: [string, Record<string, string>][] = [
    ["no Authorization header", {}],
    ["team A's API token", { authorization: `Bearer ${TOKEN_A}` }],
    ["team B's API token", { authorization: `Bearer ${TOKEN_B}` }],
    ["a wrong admin token of the right length", { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}x` }],
    ["the admin token and more", { authorization: `Bearer ${ADMIN_TOKEN}0` }],
    ["the admin token's prefix", { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` }],
    ["the admin token without Bearer", { authorization: ADMIN_TOKEN }],
    ["the admin token in another header", { "x-admin-token": ADMIN_TOKEN }],
  ];

  function expectRefused(answer: Answer, what: string): void {
    expect(answer.status, what).toBe(401);
    expect(answer.headers["www-authenticate"], what).toBe('Bearer realm="routerjobs-admin"');
    expect(answer.body, what).toEqual({
      status: "error",
      error: {
        code: "unauthenticated",
        message: "the admin API needs the admin token of <data>/admin-token",
        request_id: answer.headers["x-request-id"],
      },
    });
  }

  for (const [name, headers] of credentials) {
    it(`401 for ${name} on every admin route, and nothing changes`, async () => {
      const before = await snapshot(svc);
      for (const [method, path, body] of adminRoutes(pendingJobId)) {
        const answer = await svc.call(method, path, { token: null, headers, body });
        expectRefused(answer, `${method} ${path}`);
      }
      expect(await snapshot(svc)).toBe(before);
    });
  }

  it("authenticates before reading the body: a bad body without the admin token is a 401 too", async () => {
    const before = await snapshot(svc);
    expectRefused(await svc.call("POST", "/admin/seed", { token: TOKEN_A, raw: "{" }), "invalid JSON");
    const form = await svc.call("POST", "/admin/tokens", {
      token: null,
      raw: `team_id=${NEW_TEAM}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expectRefused(form, "a form body");
    expect(await snapshot(svc)).toBe(before);
  });

  it("answers 404 to a caller that is not on loopback, even with the admin token", async () => {
    const before = await snapshot(svc);
    for (const [method, url, body] of adminRoutes(pendingJobId)) {
      const answer = await svc.service.app.inject({
        method,
        url,
        remoteAddress: "203.0.113.7",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      expect(answer.statusCode, `${method} ${url}`).toBe(404);
      expect(answer.json().error).toMatchObject({
        code: "not_found",
        message: "the admin API answers loopback callers only",
      });
    }
    expect(await snapshot(svc)).toBe(before);
  });

  it("the admin token from loopback is accepted on every route (the refusals above are not 404s in disguise)", async () => {
    const before = await snapshot(svc);
    for (const [method, path, body] of adminRoutes(pendingJobId)) {
      const answer = await svc.call(method, path, { token: ADMIN_TOKEN, body });
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
    }
    expect(await snapshot(svc)).not.toBe(before);
    expect((await svc.call("GET", `/api/routers/${ROUTER_A}/jobs`)).status).toBe(404);
    expect((await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs`, { token: TOKEN_A2 })).status).toBe(401);
  });
});

describe("--admin-remote: other hosts may call the admin API, with the admin token only", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000, adminRemote: true });
  });
  afterAll(async () => svc?.close());

  it("a remote caller needs the admin token", async () => {
    const remote = (authorization?: string) =>
      svc.service.app.inject({
        method: "POST",
        url: `/admin/routers/${ROUTER_A}/offline`,
        remoteAddress: "203.0.113.7",
        headers: authorization ? { authorization } : {},
      });
    for (const authorization of [undefined, `Bearer ${TOKEN_A}`]) {
      const answer = await remote(authorization);
      expect(answer.statusCode).toBe(401);
      expect(answer.json().error.code).toBe("unauthenticated");
    }
    const sync = () =>
      svc.call("POST", `/api/synchronous/${ROUTER_A}`, { body: { command: "/system/identity/print" } });
    expect((await sync()).status).toBe(200);
    expect((await remote(`Bearer ${ADMIN_TOKEN}`)).statusCode).toBe(200);
    // The scheme is case-insensitive (RFC 9110), as on /api
    expect((await remote(`bearer ${ADMIN_TOKEN}`)).statusCode).toBe(200);
    expect((await sync()).status).toBe(502);
  });
});

describe("team isolation on the public API (beyond api.test.ts)", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
  });
  afterAll(async () => svc?.close());

  /** What an answer tells about a router, with its id taken out. */
  const shape = (answer: Answer, routerId: string) => ({
    status: answer.status,
    code: answer.body.error?.code,
    message: answer.body.error?.message?.replaceAll(routerId, "<router>"),
    details: answer.body.error?.details,
  });

  it("sync and async to another team's router answer exactly as for an unknown router", async () => {
    const requests: [string, unknown][] = [
      ["/api/synchronous/", { command: "/system/identity/print" }],
      ["/api/asynchronous/", job],
      // A bad body does not tell them apart either.
      ["/api/synchronous/", { command: 42 }],
      ["/api/asynchronous/", { description: "no script" }],
    ];
    for (const [prefix, body] of requests) {
      const foreign = await svc.call("POST", `${prefix}${ROUTER_B}`, { body });
      const unknown = await svc.call("POST", `${prefix}${UNKNOWN_ROUTER}`, { body });
      expect(shape(foreign, ROUTER_B), prefix).toEqual(shape(unknown, UNKNOWN_ROUTER));
      expect([404, 422]).toContain(foreign.status);
    }
    const valid = await svc.call("POST", `/api/asynchronous/${ROUTER_B}`, { body: job });
    expect(valid.body.error.code).toBe("router_not_found");
  });

  it("another team's requests change nothing on this team's router", async () => {
    const identity = async () =>
      (
        await svc.call("POST", `/api/synchronous/${ROUTER_A}`, {
          body: { command: "/system/identity/print" },
        })
      ).body.data[0].name;
    const name = await identity();
    const write = await svc.call("POST", `/api/synchronous/${ROUTER_A}`, {
      token: TOKEN_B,
      body: { command: "/system/identity/set", parameters: "=name=stolen" },
    });
    expect(write.status).toBe(404);
    expect(await identity()).toBe(name);
    const before = await svc.jobs(ROUTER_A);
    expect((await svc.submit(ROUTER_A, { ...job, express_execute: true }, TOKEN_B)).status).toBe(404);
    expect(await svc.jobs(ROUTER_A)).toEqual(before);
  });

  it("another team's Idempotency-Key on this team's router is a 404, never a replay of this team's job", async () => {
    const key = crypto.randomUUID();
    const ours = await svc.submit(ROUTER_A, job, TOKEN_A, { "idempotency-key": key });
    expect(ours.status).toBe(202);
    const theirs = await svc.submit(ROUTER_A, job, TOKEN_B, { "idempotency-key": key });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe("router_not_found");
    expect(JSON.stringify(theirs.body)).not.toContain(ours.body.data.request_id);
    expect(theirs.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("a token whose team part names another team authenticates as no one", async () => {
    const [tokenId, , secret] = TOKEN_A.split(":");
    const forged = `${tokenId}:${TEAM_B}:${secret}`;
    for (const routerId of [ROUTER_A, ROUTER_B]) {
      const answer = await svc.call("GET", `/api/routers/${routerId}/jobs`, { token: forged });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe("unauthenticated");
    }
  });

  it("two Authorization headers answer 400, whichever of them is valid: which one was meant is unknown", async () => {
    const dispatcher = new Agent({ connect: { ca: svc.service.ca as string } });
    try {
      for (const pair of [
        [TOKEN_B, TOKEN_A],
        [TOKEN_A, TOKEN_B],
      ]) {
        const answer = await request(`${svc.url}/api/routers/${ROUTER_A}/jobs`, {
          dispatcher,
          headers: ["authorization", `Bearer ${pair[0]}`, "authorization", `Bearer ${pair[1]}`],
        });
        const body = (await answer.body.json()) as Loose;
        expect(answer.statusCode).toBe(400);
        expect(body.error.code).toBe("bad_request");
        expect(JSON.stringify(body)).not.toContain(TOKEN_A.split(":")[2]);
      }
    } finally {
      await dispatcher.close();
    }
  });

  it("the team's other token sees the same routers and jobs (the refusals above are about the team)", async () => {
    const listed = await svc.jobs(ROUTER_A, TOKEN_A2);
    expect(listed).toEqual(await svc.jobs(ROUTER_A, TOKEN_A));
    expect(listed.length).toBeGreaterThan(0);
    expect((await svc.call("GET", `/api/routers/${ROUTER_B}/jobs`, { token: TOKEN_A2 })).status).toBe(404);
  });
});
