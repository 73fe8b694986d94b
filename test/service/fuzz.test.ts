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

  /*
   * fast-check's default string is printable ASCII only. Text here is any code point ("binary", astral ones
   * included), with NUL and unpaired surrogates (which "binary" never yields) mixed in: the characters the
   * database refuses, and which the contract must refuse first.
   */
  const hostileChar = fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.constant("\u0000") },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
    },
  );
  const text = (constraints: { minLength?: number; maxLength?: number } = {}) =>
    fc.oneof(fc.string({ unit: "binary", ...constraints }), fc.string({ unit: hostileChar, ...constraints }));
  const jsonValue = fc.jsonValue({ maxDepth: 4, stringUnit: hostileChar });
  const jobLike = fc.record(
    {
      description: fc.oneof(text({ maxLength: 120 }), jsonValue),
      script: fc.oneof(text({ maxLength: 50 }), text({ minLength: 1990, maxLength: 2010 }), jsonValue),
      make_backup: fc.oneof(fc.boolean(), jsonValue),
      express_execute: fc.oneof(fc.boolean(), jsonValue),
      needs_acknowledgement: fc.oneof(fc.boolean(), jsonValue),
      notify_url: fc.oneof(
        fc.webUrl(),
        fc.webUrl().chain((url) => text({ maxLength: 10 }).map((tail) => `${url}${tail}`)),
        text(),
        jsonValue,
      ),
      extra: jsonValue,
    },
    { requiredKeys: [] },
  );
  const syncLike = fc.record(
    {
      command: fc.oneof(
        fc.constantFrom("/system/identity/set", "/ip/address/add", "/ip/arp/print"),
        text(),
        jsonValue,
      ),
      parameters: fc.oneof(
        text().map((value) => `=name=${value}`),
        text().map((value) => `=comment=${value}`),
        text(),
        jsonValue,
      ),
    },
    { requiredKeys: [] },
  );
  const deep = fc.integer({ min: 1, max: 20_000 }).map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`);
  const body = fc.oneof(
    jobLike.map((value) => JSON.stringify(value)),
    syncLike.map((value) => JSON.stringify(value)),
    jsonValue.map((value) => JSON.stringify(value)),
    text({ maxLength: 200 }),
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
    fc.string({ unit: "binary", maxLength: 60 }).map((tail) => `/api/${encodeURIComponent(tail)}`),
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
  });

  it("an authenticated JSON request to a real endpoint never answers 5xx, whatever text its fields hold", async () => {
    // The first property rarely gets past authentication and routing; this one always reaches the database.
    const nearlyValidJob = fc.record(
      {
        description: fc.oneof(fc.constant("set identity"), text({ minLength: 1, maxLength: 110 })),
        script: fc.oneof(fc.constant("/system identity set name=x"), text({ minLength: 1, maxLength: 60 })),
        notify_url: fc
          .webUrl({ validSchemes: ["https"] })
          .chain((url) => text({ maxLength: 8 }).map((tail) => `${url}${tail}`)),
        needs_acknowledgement: fc.boolean(),
      },
      { requiredKeys: ["description", "script"] },
    );
    const nearlyValidSync = fc.record({
      command: fc.oneof(
        fc.constantFrom("/system/identity/set", "/ip/address/add"),
        text({ minLength: 1, maxLength: 20 }),
      ),
      parameters: fc.oneof(
        text({ maxLength: 40 }).map((value) => `=name=${value}`),
        text({ maxLength: 40 }).map((value) => `=address=10.0.0.1/24\n=interface=ether1\n=comment=${value}`),
      ),
    });
    const call = fc.oneof(
      nearlyValidJob.map((payload) => ({ url: `/api/asynchronous/${ROUTER_A}`, payload })),
      nearlyValidSync.map((payload) => ({ url: `/api/synchronous/${ROUTER_A}`, payload })),
    );
    await fc.assert(
      fc.asyncProperty(call, async ({ url, payload }) => {
        const response = await app.inject({
          method: "POST",
          url,
          headers: { authorization: `Bearer ${TOKEN_A}`, "content-type": "application/json" },
          payload: JSON.stringify(payload),
        });
        expect(response.statusCode, `${url} ${JSON.stringify(payload)} -> ${response.body}`).toBeLessThan(
          500,
        );
        if (response.statusCode === 422) {
          for (const detail of response.json().error.details)
            expect(Object.keys(payload)).toContain(detail.field);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("a valid job from the fuzzer's shapes is accepted and creates exactly one job", async () => {
    const storable = (constraints: { minLength: number; maxLength: number }) =>
      fc.string({ unit: "binary", ...constraints }).filter((value) => !value.includes("\u0000"));
    await fc.assert(
      fc.asyncProperty(
        // Lengths count code points: 100 astral characters are a valid description.
        storable({ minLength: 1, maxLength: 100 }),
        storable({ minLength: 1, maxLength: 2000 }),
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
  });
});
