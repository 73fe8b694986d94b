import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../src/client/index.js";
import { makeClient, tempBudgetDir } from "./helpers/make-client.js";
import { envelope, ROUTER_ID, type StandIn, startStandIn, TOKEN } from "./helpers/stand-in-service.js";

const SECRET = TOKEN.split(":")[2] as string;
let service: StandIn;

beforeAll(async () => {
  service = await startStandIn();
});
afterAll(async () => {
  await service.close();
});

/** Every way a value may be printed, logged or serialised. */
function renderings(value: unknown): string[] {
  const error = value as Error;
  return [
    inspect(value, { depth: 20, showHidden: true }),
    JSON.stringify(value) ?? "",
    String(value),
    error?.stack ?? "",
    error?.message ?? "",
  ];
}

describe("the token never leaks", () => {
  it("is absent from the client's inspect, JSON and string forms", () => {
    const client = makeClient(service.url);
    for (const text of renderings(client)) expect(text).not.toContain(SECRET);
    expect(inspect(client)).toContain(`${TOKEN.split(":")[0]}:***`);
    expect(JSON.stringify(client)).toContain(service.url);
  });

  it("masks a console API key (alto_sk_) and an OAuth JWT as it masks the spec's token, in every form", async () => {
    const consoleKey = "alto_sk_4fQ9zR2mXw7LkP0sT8vB3nY6cJ1hD5gA";
    const jwt =
      "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0ZWFtLWEiLCJleHAiOjE4OTM0NTYwMDB9.c2lnbmF0dXJlLWJ5dGVzLXNlY3JldA";
    for (const token of [consoleKey, jwt]) {
      const lines: string[] = [];
      const logger = {
        debug: (message: string, fields?: object) => lines.push(message + JSON.stringify(fields)),
        warn: (message: string, fields?: object) => lines.push(message + JSON.stringify(fields)),
      };
      const client = makeClient(service.url, { token, logger, retry: { maxAttempts: 1 } });
      // The secret part: all after the key's prefix, the JWT's payload and signature.
      const secret = token.startsWith("alto_sk_") ? token.slice(8) : token.slice(token.indexOf(".") + 1);
      expect(inspect(client)).toContain("token: '***'");
      for (const text of renderings(client)) expect(text).not.toContain(secret);
      // AND a refusal of it by the service (401) and its logs do not show it either
      service.script({ status: 401, body: envelope("unauthenticated", "bad token") });
      const refused = await client.listJobs(ROUTER_ID).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(Error);
      for (const text of [...renderings(refused), ...lines]) expect(text).not.toContain(secret);
      // AND it travelled as the bearer token, whole
      expect(service.requests.at(-1)?.headers.authorization).toBe(`Bearer ${token}`);
      await client.close();
    }
  });

  it("is absent from every error, log line and warning", async () => {
    const lines: string[] = [];
    const logger = {
      debug: (message: string, fields?: object) => lines.push(message + JSON.stringify(fields)),
      warn: (message: string, fields?: object) => lines.push(message + JSON.stringify(fields)),
    };
    const client = makeClient(service.url, {
      logger,
      requestTimeoutMs: 100,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    service.script(
      { status: 401, body: envelope("unauthenticated", "bad token") },
      { status: 429, body: { message: "Too Many Attempts." }, headers: { "retry-after": "0" } },
      { status: 500, body: "<html>" },
      { drop: true },
      { drop: true },
      { hang: true },
      { hang: true },
    );
    const errors = await Promise.all([
      client.listJobs(ROUTER_ID).catch((e: unknown) => e),
      client.execute(ROUTER_ID, "/x").catch((e: unknown) => e),
      client.execute(ROUTER_ID, "/x").catch((e: unknown) => e),
      client.listJobs(ROUTER_ID).catch((e: unknown) => e),
      client.listJobs(ROUTER_ID).catch((e: unknown) => e),
      client.submitJob(ROUTER_ID, { description: "d", script: "x".repeat(3000) }).catch((e: unknown) => e),
    ]);
    const closed = await startStandIn();
    await closed.close();
    const nowhere = makeClient(closed.url, { logger, retry: { maxAttempts: 1 } });
    errors.push(await nowhere.listJobs(ROUTER_ID).catch((e: unknown) => e));
    expect(errors.every((error) => error instanceof Error)).toBe(true);
    for (const error of errors) for (const text of renderings(error)) expect(text).not.toContain(SECRET);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain(SECRET);
    await Promise.all([client.close(), nowhere.close()]);
  });

  it("is not echoed when it is malformed", () => {
    const token = `${TOKEN.slice(0, -1)}\u00e9`;
    const error = (() => {
      try {
        return new RouterJobsClient({ baseUrl: service.url, token, budgetDir: tempBudgetDir() });
      } catch (e) {
        return e;
      }
    })();
    expect((error as Error).message).toBe(
      `invalid client options: token must be ASCII only (a character outside ASCII at position ${TOKEN.length})`,
    );
    for (const text of renderings(error)) expect(text).not.toContain(SECRET.slice(0, -1));
  });
});
