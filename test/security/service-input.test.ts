/**
 * Hostile requests against the service over real TLS on loopback: traversal in paths, oversized and
 * duplicated headers, with the service's log captured to check that no token ever reaches it.
 */

import { Writable } from "node:stream";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSigningSecret } from "../../src/contract/signing-secret.js";
import { mintSignInCode } from "../../src/service/portal/index.js";
import { rawTlsRequest } from "../helpers/raw-tls.js";
import {
  ADMIN_TOKEN,
  type Loose,
  ROUTER_A,
  ROUTER_B,
  startTestService,
  TEAM_A,
  type TestService,
  TOKEN_A,
  TOKEN_B,
} from "../service/harness.js";
import { PortalClient } from "../service/portal/portal-client.js";

const SECRET_A = TOKEN_A.split(":")[2] as string;

describe("hostile input to the service", () => {
  let service: TestService;
  const log: string[] = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log.push(String(chunk));
        done();
      },
    });
    // The service's own pino logger at its most verbose, into memory.
    service = await startTestService({}, undefined, { logger: { level: "trace", stream } });
  });
  afterAll(async () => service?.close());

  it("answers traversal and odd paths with a 4xx in the contract's envelope, never a 5xx", async () => {
    const paths = [
      `/api/routers/..%2F..%2Fetc%2Fpasswd/jobs`,
      `/api/routers/../../etc/passwd/jobs`,
      `/api/routers/${ROUTER_A}/../${ROUTER_B}/jobs`,
      `/api/routers/%00/jobs`,
      `/api/routers/${"a".repeat(5000)}/jobs`,
      `/api/routers/${ROUTER_A}/jobs%2F..%2F..%2Fadmin`,
      "/%2e%2e/%2e%2e/admin/routers",
      "/api/routers/%E0%A4%A/jobs",
    ];
    for (const path of paths) {
      const answer = await service.call("GET", path);
      expect(answer.status, path).toBeGreaterThanOrEqual(400);
      expect(answer.status, path).toBeLessThan(500);
      expect(answer.body.status, path).toBe("error");
    }
  });

  it("refuses oversized headers, and duplicated Authorization headers with a 400", async () => {
    const huge = await rawRequest(
      service,
      `GET /api/routers/${ROUTER_A}/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN_A}\r\nX-Big: ${"b".repeat(70_000)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431/);
    const twice = await rawRequest(
      service,
      `GET /api/routers/${ROUTER_B}/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN_A}\r\nAuthorization: Bearer ${TOKEN_A}\r\nConnection: close\r\n\r\n`,
    );
    // Node keeps only the first of two Authorization headers: which one was meant is unknown, so 400.
    expect(twice).toMatch(/^HTTP\/1\.1 400/);
    expect(twice).not.toContain('"status":"success"');
  });

  it("refuses smuggling and injected header lines with a 400, and runs nothing they carried", async () => {
    const before = (await service.jobs(ROUTER_A)).length;
    const body = JSON.stringify({ description: "smuggled", script: "/system identity set name=smuggled" });
    const head = `POST /api/asynchronous/${ROUTER_A} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN_A}\r\nContent-Type: application/json\r\n`;
    const attempts = [
      // Both lengths: a front proxy and the service could disagree on where the request ends.
      `${head}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
      // A bare CR inside a header value, the classic way to slip in a header line.
      `${head}X-Note: a\rAuthorization: Bearer x\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      // Obsolete line folding continues a header onto the next line.
      `${head}X-Note: a\r\n Authorization: Bearer x\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ];
    for (const attempt of attempts) expect(await rawRequest(service, attempt)).toMatch(/^HTTP\/1\.1 400/);
    expect((await service.jobs(ROUTER_A)).length).toBe(before);
  });

  it("refuses NUL and unpaired surrogates in every field that reaches the database: 422 naming it, never 5xx", async () => {
    const job = {
      description: "d",
      script: "/system identity set name=x",
      notify_url: "https://r.example/n",
    };
    const sync = { command: "/system/identity/set", parameters: "=name=x" };
    const cases = [
      ...Object.keys(job).map((field) => [`/api/asynchronous/${ROUTER_A}`, job, field] as const),
      ...Object.keys(sync).map((field) => [`/api/synchronous/${ROUTER_A}`, sync, field] as const),
    ];
    const before = (await service.jobs(ROUTER_A)).length;
    for (const [path, body, field] of cases) {
      for (const bad of ["\u0000", "\ud800"]) {
        const value = (body as Record<string, string>)[field];
        const answer = await service.call("POST", path, { body: { ...body, [field]: `${value}${bad}` } });
        expect(answer.status, `${field} ${JSON.stringify(bad)}`).toBe(422);
        expect(answer.body.error.details).toEqual([
          { field, message: expect.stringMatching(new RegExp(`^${field} must not contain`)) },
        ]);
      }
    }
    expect((await service.jobs(ROUTER_A)).length).toBe(before);
    const admin = await service.call("POST", "/admin/routers", {
      token: ADMIN_TOKEN,
      body: { team_id: TEAM_A, name: "edge\u0000" },
    });
    expect(admin.status).toBe(422);
    expect(admin.body.error.details[0].message).toBe("name must not contain NUL characters (\\u0000)");
  });

  it("refuses bytes that are not UTF-8 in a JSON body with 400 naming the field, as the sites API refuses them, and stores nothing", async () => {
    const dispatcher = new Agent({ connect: { ca: service.service.ca as string } });
    const post = async (path: string, body: Buffer) => {
      const answer = await request(`${service.url}${path}`, {
        method: "POST",
        dispatcher,
        headers: { authorization: `Bearer ${TOKEN_A}`, "content-type": "application/json" },
        body,
      });
      return { status: answer.statusCode, body: (await answer.body.json()) as Record<string, Loose> };
    };
    /** `fields` as JSON, with a byte 0xFF (never UTF-8) in the middle of `field`'s value. */
    const withBadByte = (fields: Record<string, string>, field: string) => {
      const [before, after] = JSON.stringify({ ...fields, [field]: `${fields[field]}\u0000` }).split(
        "\\u0000",
      );
      return Buffer.concat([
        Buffer.from(before as string),
        Buffer.from([0xff]),
        Buffer.from(after as string),
      ]);
    };
    const job = {
      description: "caf",
      script: "/system identity set name=x",
      notify_url: "https://r.example/n",
    };
    const sync = { command: "/system/identity/set", parameters: "=name=x" };
    const before = (await service.jobs(ROUTER_A)).length;
    try {
      for (const [path, fields] of [
        [`/api/asynchronous/${ROUTER_A}`, job],
        [`/api/synchronous/${ROUTER_A}`, sync],
      ] as const) {
        for (const field of Object.keys(fields)) {
          const answer = await post(path, withBadByte(fields, field));
          expect(answer.status, field).toBe(400);
          expect(answer.body.error.code).toBe("invalid_json");
          expect(answer.body.error.message).toBe(
            `the request body is not valid UTF-8 (in ${field}): send JSON as UTF-8`,
          );
          expect(answer.body.error.details).toEqual([{ field, message: `${field} is not valid UTF-8` }]);
        }
      }
    } finally {
      await dispatcher.close();
    }
    expect((await service.jobs(ROUTER_A)).length).toBe(before);
    expect((await service.call("GET", `/api/routers/${ROUTER_A}/jobs`)).body.data).not.toContainEqual(
      expect.objectContaining({ description: "caf\ufffd" }),
    );
  });

  it("seeds only signing secrets the receiver accepts, and refuses bad seeds with 422, never 5xx", async () => {
    const seed = (team: Record<string, unknown>) =>
      service.call("POST", "/admin/seed", { token: ADMIN_TOKEN, body: { teams: [{ id: TEAM_A, ...team }] } });
    // 16 base64 characters are 12 bytes: the old rule took them, the receiver refuses under 24 bytes.
    for (const secret of [
      `whsec_${Buffer.alloc(12, 1).toString("base64")}`,
      `whsec_${Buffer.alloc(65, 1).toString("base64")}`,
      "whsec_not*base64*at*all*at*all*at*all",
    ]) {
      const answer = await seed({ signing_secret: secret });
      expect(answer.status).toBe(422);
      expect(answer.body.error.details).toEqual([
        {
          field: "teams.0.signing_secret",
          message: "signing_secret must be whsec_ followed by the base64 of 24 to 64 random bytes",
        },
      ]);
      expect(JSON.stringify(answer.body)).not.toContain(secret);
    }
    const accepted = `whsec_${Buffer.alloc(24, 1).toString("base64")}`;
    expect(() => parseSigningSecret(accepted)).not.toThrow();
    expect((await seed({ signing_secret: accepted })).status).toBe(200);
    // A token of team B listed under team A, and a router that belongs to team B: operator errors, 422.
    const foreignToken = await seed({ tokens: [TOKEN_B] });
    expect(foreignToken.status).toBe(422);
    expect(foreignToken.body.error.details[0]).toMatchObject({ field: "teams.0.tokens.0" });
    const foreignRouter = await seed({ routers: [{ id: ROUTER_B, name: "edge-b" }] });
    expect(foreignRouter.status).toBe(422);
    expect(foreignRouter.body.error.message).toMatch(/belongs to another team/);
    // A token whose id is taken by a token with another secret would not authenticate: refused, not counted
    const [tokenId] = TOKEN_A.split(":");
    const sameIdOtherSecret = `${TOKEN_A.slice(0, TOKEN_A.lastIndexOf(":"))}:${"Zz9".repeat(20)}ab`;
    const clash = await seed({ tokens: [sameIdOtherSecret] });
    expect(clash.status).toBe(422);
    expect(clash.body.error.message).toBe(
      `seed: token ${tokenId} already exists with another team or secret`,
    );
    expect(JSON.stringify(clash.body)).not.toContain("Zz9Zz9");
    expect((await seed({ tokens: [TOKEN_A] })).status).toBe(200);
  });

  it("sends Strict-Transport-Security on its HTTPS answers (API, errors, portal pages and streams), none over HTTP", async () => {
    const hsts = "max-age=31536000";
    for (const [path, token] of [
      [`/api/routers/${ROUTER_A}/jobs`, TOKEN_A],
      [`/api/routers/${ROUTER_A}/jobs`, null],
      ["/api/no-such-thing", TOKEN_A],
      ["/healthz", null],
      ["/portal", null],
    ] as const) {
      const answer = await service.call("GET", path, { token });
      expect(answer.headers["strict-transport-security"], path).toBe(hsts);
    }
    const browser = new PortalClient(service);
    try {
      await browser.signIn(TOKEN_A);
      const page = await browser.get(`/portal/routers/${ROUTER_A}`);
      expect(page.headers["strict-transport-security"]).toBe(hsts);
      const dispatcher = new Agent({ connect: { ca: service.service.ca as string } });
      const events = await request(`${service.url}/portal/events`, {
        dispatcher,
        headers: { cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join("; ") },
      });
      expect(events.statusCode).toBe(200);
      expect(events.headers["strict-transport-security"]).toBe(hsts);
      events.body.destroy();
      await dispatcher.destroy();
    } finally {
      await browser.close();
    }
    // Over plain HTTP a browser must ignore it, and a service must not send it.
    const plain = await service.service.app.inject({ method: "GET", url: "/healthz" });
    expect(plain.headers["strict-transport-security"]).toBeUndefined();
  });

  it("keeps every token out of its log, for accepted and refused requests alike", async () => {
    await service.call("GET", `/api/routers/${ROUTER_A}/jobs`);
    await service.call("GET", `/api/routers/${ROUTER_A}/jobs`, { token: `${TOKEN_A.slice(0, -1)}Z` });
    await service.call("POST", `/api/asynchronous/${ROUTER_A}`, {
      body: { description: "d", script: "x".repeat(3000) },
    });
    const text = log.join("");
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain(SECRET_A);
    expect(text).not.toContain(SECRET_A.slice(0, -1));
    expect(text.toLowerCase()).not.toContain("bearer ");
    // Node's parse errors (the 431 above) would carry the raw bytes received, the token among them, as numbers.
    expect(text).toContain("header_overflow");
    expect(text).not.toContain("rawPacket");
  });

  it("keeps a token put in a URL, and a sign-in link's code, out of its request log", async () => {
    const from = log.length;
    const encoded = TOKEN_A.replaceAll(":", "%3A");
    await service.call("GET", `/api/routers/${ROUTER_A}/jobs?token=${TOKEN_A}`, { token: null });
    await service.call("GET", `/api/routers/${ROUTER_A}/jobs?access_token=${encoded}`, { token: null });
    await service.call("GET", `/api/routers/${TOKEN_A}/jobs`);
    await service.call("GET", `/portal/${encoded}`, { token: null });
    const code = await mintSignInCode(
      service.service.app.db,
      { teamId: TEAM_A, tokenId: TOKEN_A.split(":")[0] as string },
      new Date(),
    );
    await service.call("GET", `/portal/sign-in/code/${code}`, { token: null });
    const text = log.slice(from).join("");
    // The requests were logged, with what may be logged of them.
    expect(text).toContain("token=***");
    expect(text).toContain("access_token=***");
    expect(text).toContain(`/api/routers/${TOKEN_A.split(":")[0]}:***/jobs`);
    expect(text).toContain("/portal/sign-in/code/***");
    expect(text).not.toContain(SECRET_A);
    expect(text).not.toContain(code);
  });
});

function rawRequest(service: TestService, text: string): Promise<string> {
  return rawTlsRequest(service.url, service.service.ca as string, text);
}
