import fc from "fast-check";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/service/app.js";
import { resolveConfig } from "../../src/service/config.js";
import { applySeed } from "../../src/service/seed.js";
import { newBackend } from "./backend.js";
import { ROUTER_A, ROUTER_B, SEED, TOKEN_A } from "./harness.js";

/** Random requests through `inject` (routing, parsing, validation): never a 5xx, never a job from a refusal. */
describe("fuzzing the HTTP API", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await createApp({
      config: resolveConfig({
        database: "memory://",
        tickMs: 60_000,
        rateLimit: { count: 1_000_000, windowMs: 1000 },
      }),
      backend: newBackend(),
    });
    await app.ready();
    await applySeed(app.db, SEED as never);
  });
  afterAll(async () => app?.close());

  const jobCount = async () =>
    (await app.db.query<{ count: number }>("SELECT count(*)::int AS count FROM jobs")).rows[0]?.count ?? 0;

  const jsonValue = fc.jsonValue({ maxDepth: 4 });
  const jobLike = fc.record(
    {
      description: fc.oneof(fc.string({ maxLength: 120 }), jsonValue),
      script: fc.oneof(
        fc.string({ maxLength: 50 }),
        fc.string({ minLength: 1990, maxLength: 2010 }),
        jsonValue,
      ),
      make_backup: fc.oneof(fc.boolean(), jsonValue),
      express_execute: fc.oneof(fc.boolean(), jsonValue),
      needs_acknowledgement: fc.oneof(fc.boolean(), jsonValue),
      notify_url: fc.oneof(fc.webUrl(), fc.string(), jsonValue),
      extra: jsonValue,
    },
    { requiredKeys: [] },
  );
  const deep = fc.integer({ min: 1, max: 20_000 }).map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`);
  const body = fc.oneof(
    jobLike.map((value) => JSON.stringify(value)),
    fc
      .record(
        { command: fc.oneof(fc.string(), jsonValue), parameters: fc.oneof(fc.string(), jsonValue) },
        { requiredKeys: [] },
      )
      .map((value) => JSON.stringify(value)),
    jsonValue.map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 200 }),
    deep,
    fc.constant(JSON.stringify({ description: "x".repeat(70_000), script: "y" })),
    fc.constant('{"__proto__": {"polluted": true}, "description": "x", "script": "y"}'),
  );
  const path = fc.oneof(
    fc.constantFrom(
      `/api/asynchronous/${ROUTER_A}`,
      `/api/asynchronous/${ROUTER_B}`,
      `/api/synchronous/${ROUTER_A}`,
      `/api/routers/${ROUTER_A}/jobs`,
      "/healthz",
      "/admin/tokens",
    ),
    fc.string({ maxLength: 60 }).map((tail) => `/api/${encodeURIComponent(tail)}`),
    fc.webPath().map((value) => value || "/"),
    fc.constantFrom(
      "/api/asynchronous/%zz",
      "/api//jobs",
      `/api/asynchronous/${ROUTER_A.toUpperCase()}`,
      "/%00",
    ),
  );
  const contentType = fc.option(
    fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
      "",
    ),
  );
  const authorization = fc.option(
    fc.oneof(
      fc.constant(`Bearer ${TOKEN_A}`),
      fc.string().map((value) => `Bearer ${value}`),
      fc.string(),
      fc.constant(`bearer   ${TOKEN_A}`),
    ),
  );
  const method = fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD");
  const idempotencyKey = fc.option(fc.oneof(fc.uuid(), fc.string({ maxLength: 40 })));

  it("never answers 5xx, and only a 202 creates a job", async () => {
    await fc.assert(
      fc.asyncProperty(
        method,
        path,
        body,
        contentType,
        authorization,
        idempotencyKey,
        async (m, url, payload, type, auth, key) => {
          const before = await jobCount();
          const headers: Record<string, string> = {};
          if (type !== null) headers["content-type"] = type;
          if (auth !== null) headers.authorization = auth;
          if (key !== null) headers["idempotency-key"] = key;
          const response = await app.inject({
            method: m as "GET",
            url,
            headers,
            ...(m === "GET" || m === "HEAD" ? {} : { payload }),
          });
          expect(response.statusCode, `${m} ${url} -> ${response.body.slice(0, 200)}`).toBeLessThan(500);
          expect(response.headers["x-request-id"]).toBeTruthy();
          if (m !== "HEAD" && response.statusCode >= 400) expect(response.json().status).toBe("error");
          const created = (await jobCount()) - before;
          if (response.statusCode !== 202) expect(created).toBe(0);
          else expect(created).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);

  it("a valid job from the fuzzer's shapes is accepted and creates exactly one job", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 100 }),
        fc.string({ minLength: 1, maxLength: 2000 }),
        fc.boolean(),
        async (description, script, backup) => {
          const before = await jobCount();
          const response = await app.inject({
            method: "POST",
            url: `/api/asynchronous/${ROUTER_A}`,
            headers: { authorization: `Bearer ${TOKEN_A}` },
            payload: { description, script, make_backup: backup },
          });
          expect(response.statusCode).toBe(202);
          expect((await jobCount()) - before).toBe(1);
        },
      ),
      { numRuns: 50 },
    );
  }, 60_000);
});
