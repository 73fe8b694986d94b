import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ApiError,
  AuthenticationError,
  BadResponseError,
  CommandFailedError,
  NetworkError,
  RateLimitedError,
  type RouterJobsClient,
  TimeoutError,
  ValidationError,
} from "../../src/client/index.js";
import { ERROR_STATUS, type ErrorCode } from "../../src/contract/errors.js";
import { waitFor, within } from "../helpers/wait-for.js";
import { makeClient } from "./helpers/make-client.js";
import {
  envelope,
  OTHER_ROUTER_ID,
  ROUTER_ID,
  type StandIn,
  startStandIn,
  TOKEN,
} from "./helpers/stand-in-service.js";

let service: StandIn;
let client: RouterJobsClient;
const clients: RouterJobsClient[] = [];

beforeAll(async () => {
  service = await startStandIn();
  client = makeClient(service.url, { retry: { maxAttempts: 1 } });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((extra) => extra.close()));
});
afterAll(async () => {
  await client.close();
  await service.close();
});

describe("happy paths", () => {
  it("executes a command and returns the router's records", async () => {
    const records = await client.execute(ROUTER_ID, "/ip/address/print", "?interface=ether1");
    expect(records).toEqual([]);
    const sent = service.requests.at(-1);
    expect(sent?.path).toBe(`/api/synchronous/${ROUTER_ID}`);
    expect(JSON.parse(sent?.body ?? "")).toEqual({
      command: "/ip/address/print",
      parameters: "?interface=ether1",
    });
    expect(sent?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(sent?.headers["user-agent"]).toMatch(/^routerjobs\/\d/);
    const [identity] = await client.execute(ROUTER_ID, "/system/identity/print");
    expect(identity?.name).toEqual(expect.any(String));
  });

  it("gives a record's non-string values (another service's) as their string form", async () => {
    service.script({
      status: 200,
      body: {
        status: "success",
        data: [{ id: "*1", address: "10.0.0.1", interface: "ether1", dynamic: false, extra: 7 }],
      },
    });
    await expect(client.execute(ROUTER_ID, "/ip/arp/print")).resolves.toEqual([
      { id: "*1", address: "10.0.0.1", interface: "ether1", dynamic: "false", extra: "7" },
    ]);
  });

  it("submits a job with explicit defaults and both idempotency headers, and keeps unknown ack fields", async () => {
    const { ack, idempotencyKey } = await client.submitJob(ROUTER_ID, {
      description: "set identity",
      script: "/system identity set name=r1",
    });
    const sent = service.requests.at(-1);
    expect(JSON.parse(sent?.body ?? "")).toEqual({
      description: "set identity",
      script: "/system identity set name=r1",
      make_backup: false,
      express_execute: false,
      needs_acknowledgement: true,
    });
    expect(sent?.headers["idempotency-key"]).toBe(idempotencyKey);
    expect(sent?.headers["x-idempotency-key"]).toBe(idempotencyKey);
    expect(ack.idempotency_key).toBe(idempotencyKey);
    expect(ack.target).toBe(ROUTER_ID);
    // The service's extensions to the spec's acknowledgement, kept as they came.
    expect(ack.seq_id).toEqual(expect.any(Number));
    expect(ack.job_id).toEqual(expect.any(String));
  });

  it("lists jobs, mapping an unknown status to 'unknown' and keeping extra fields", async () => {
    await client.submitJob(ROUTER_ID, { description: "second", script: ":put 2" });
    const jobs = await client.listJobs(ROUTER_ID);
    expect(jobs.map((job) => job.description).slice(0, 2)).toEqual(["second", "set identity"]);
    // The service's statuses are the spec's (the scheduler may have started the job already).
    expect(["pending", "running", "completed"]).toContain(jobs[0]?.status);
    // Another service's list: a status the spec does not name, and a field of its own.
    const [listed] = jobs;
    service.script({
      status: 200,
      body: {
        status: "success",
        data: [{ ...listed, status: "quarantined", vendor_field: { nested: true } }],
      },
    });
    const [quarantined] = await client.listJobs(ROUTER_ID);
    expect(quarantined?.status).toBe("unknown");
    expect(quarantined?.vendor_field).toEqual({ nested: true });
  });

  it("sends a router id given in uppercase in lowercase, as the services' paths take it", async () => {
    await client.listJobs(ROUTER_ID.toUpperCase());
    expect(service.requests.at(-1)?.path).toBe(`/api/routers/${ROUTER_ID}/jobs`);
  });

  it("accepts any 2xx as success", async () => {
    service.script({ status: 203, body: { status: "success", data: [] } });
    await expect(client.listJobs(ROUTER_ID)).resolves.toEqual([]);
  });

  it("reuses a caller's idempotency key", async () => {
    const key = "3b241101-e2bb-4255-8caf-4136c566a962";
    const first = await client.submitJob(
      ROUTER_ID,
      { description: "d", script: "s" },
      { idempotencyKey: key },
    );
    const again = await client.submitJob(
      ROUTER_ID,
      { description: "d", script: "s" },
      { idempotencyKey: key },
    );
    expect(again.ack.request_id).toBe(first.ack.request_id);
    expect(again.idempotencyKey).toBe(key);
  });
});

describe("routerNames", () => {
  it("gives the listed routers' names by id, and an empty map where the list is refused or missing", async () => {
    service.script({
      status: 200,
      body: {
        status: "success",
        data: [
          { id: ROUTER_ID, name: "edge-1" },
          { id: OTHER_ROUTER_ID, name: "edge-2" },
        ],
      },
    });
    expect(await client.routerNames()).toEqual(
      new Map([
        [ROUTER_ID, "edge-1"],
        [OTHER_ROUTER_ID, "edge-2"],
      ]),
    );
    expect(service.requests.at(-1)?.path).toBe("/api/routers");
    service.script({ status: 404, body: envelope("not_found", "no such route") });
    expect(await client.routerNames()).toEqual(new Map());
    service.script({ status: 403, body: envelope("forbidden", "not for this token") });
    expect(await client.routerNames()).toEqual(new Map());
  });
});

describe("validation before sending", () => {
  it("names the field, the limit and the actual value, and sends nothing", async () => {
    const before = service.requests.length;
    const error = await client
      .submitJob(ROUTER_ID, { description: "d", script: "x".repeat(2417) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details).toEqual([
      {
        field: "script",
        message:
          "script must be at most 2000 characters on the spec API (got 2417); the sdx API takes up to 10000",
      },
    ]);
    await expect(
      client.submitJob(ROUTER_ID, { description: "d", script: "s", notify_url: "http://x" }),
    ).rejects.toThrow(/notify_url must be an absolute https: URL/);
    await expect(client.execute("edge-1", "/ip/arp/print")).rejects.toThrow(
      'routerId must be a UUID (got "edge-1")',
    );
    await expect(client.execute(ROUTER_ID, "")).rejects.toThrow("command must not be empty");
    await expect(
      client.submitJob(ROUTER_ID, { description: "d", script: "s" }, { idempotencyKey: "k1" }),
    ).rejects.toThrow(/idempotencyKey must be a lowercase UUID/);
    expect(service.requests.length).toBe(before);
  });

  it("validates options once, naming the option and the rule", () => {
    expect(() => makeClient("ftp://x")).toThrow('baseUrl must use http: or https: (got "ftp:")');
    expect(() => makeClient(service.url, { connectTimeoutMs: -1 })).toThrow(
      "connectTimeoutMs must be a whole number of at least 1 (got number -1)",
    );
    expect(() => makeClient(service.url, { token: "a b" })).toThrow(
      "token must not contain whitespace or control characters (one at position 2)",
    );
    expect(() => makeClient(service.url, { caFile: "/nonexistent/ca.pem" })).toThrow(
      /caFile cannot be read \(ENOENT/,
    );
  });
});

describe("error responses", () => {
  const expectedClass: Partial<Record<ErrorCode, new (...args: never[]) => ApiError>> = {
    unauthenticated: AuthenticationError,
    rate_limited: RateLimitedError,
    command_failed: CommandFailedError,
  };

  it.each(Object.entries(ERROR_STATUS) as [ErrorCode, number][])(
    "maps %s (HTTP %i) to its class",
    async (code, status) => {
      service.script({
        status,
        body: envelope(code, `the ${code} message`, [{ field: "f", message: "m" }]),
        // A 429 without Retry-After holds the key for a whole window (standin.test.ts); here it must not.
        headers: { "x-request-id": "req-1", ...(status === 429 ? { "retry-after": "0" } : {}) },
      });
      const error = (await client.listJobs(ROUTER_ID).catch((e: unknown) => e)) as ApiError;
      expect(error).toBeInstanceOf(expectedClass[code] ?? ApiError);
      expect(error).not.toBeInstanceOf(BadResponseError);
      expect(error.statusCode).toBe(status);
      expect(error.apiCode).toBe(code);
      expect(error.message).toBe(`the ${code} message (HTTP ${status})`);
      expect(error.details).toEqual([{ field: "f", message: "m" }]);
      expect(error.requestId).toBe("req-1");
      expect(error.raw).toBeUndefined();
      expect(error.code).toMatch(/^RJ_ERR_/);
    },
  );

  it("answers the real contract paths: unknown router, bad token", async () => {
    await expect(client.listJobs(OTHER_ROUTER_ID)).rejects.toMatchObject({
      statusCode: 404,
      apiCode: "router_not_found",
    });
    const stranger = makeClient(service.url, { token: TOKEN.replace(/.{4}$/, "zzzz") });
    clients.push(stranger);
    await expect(stranger.listJobs(ROUTER_ID)).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("reads Laravel's validation and throttling bodies", async () => {
    service.script({
      status: 422,
      body: {
        message: "The script field is required.",
        errors: { script: ["The script field is required."] },
      },
    });
    await expect(client.submitJob(ROUTER_ID, { description: "d", script: "s" })).rejects.toMatchObject({
      statusCode: 422,
      apiCode: undefined,
      message: "The script field is required. (HTTP 422)",
      details: [{ field: "script", message: "The script field is required." }],
    });
    service.script({ status: 429, body: { message: "Too Many Attempts." }, headers: { "retry-after": "0" } });
    await expect(client.execute(ROUTER_ID, "/ip/arp/print")).rejects.toMatchObject({
      name: "RateLimitedError",
      retryAfterMs: 0,
    });
  });

  it("keeps the raw text of an error body that is not an envelope", async () => {
    service.script({ status: 502, body: "<html>Bad Gateway</html>" });
    const error = (await client.listJobs(ROUTER_ID).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.raw).toBe("<html>Bad Gateway</html>");
    expect(error.message).toBe(
      "the service answered HTTP 502 with a body that is not an error envelope: <html>Bad Gateway</html>",
    );
  });

  it("reports a malformed success body as BadResponseError", async () => {
    service.script({ status: 200, body: "{not json" });
    await expect(client.listJobs(ROUTER_ID)).rejects.toThrow(
      "the service answered HTTP 200 with a body that is not JSON",
    );
    service.script({ status: 200, body: { status: "success", data: [{ id: 1 }] } });
    const error = await client.listJobs(ROUTER_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadResponseError);
    expect((error as BadResponseError).message).toMatch(/unexpected body \(data\.0\.id: /);
  });
});

describe("transport failures", () => {
  it("times out a slow answer (TimeoutError, phase response)", async () => {
    const slow = makeClient(service.url, { requestTimeoutMs: 200, retry: { maxAttempts: 1 } });
    clients.push(slow);
    service.script({ hang: true });
    const error = (await slow.listJobs(ROUTER_ID).catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    // "response": the request timeout ended it, not the call's 10 s deadline (which would say "deadline").
    expect(error.phase).toBe("response");
  });

  it("stops at the call's deadline", async () => {
    service.script({ status: 200, body: { status: "success", data: [] }, delayMs: 1000 });
    const error = (await client
      .listJobs(ROUTER_ID, { deadlineMs: 150 })
      .catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.phase).toBe("deadline");
    expect(error.message).toBe("the call did not complete within its deadline of 150 ms");
  });

  it("reports a dropped connection as NetworkError that may have been sent", async () => {
    service.script({ drop: true });
    const error = (await client.execute(ROUTER_ID, "/ip/arp/print").catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.requestSent).toBe(true);
  });

  it("reports a refused connection as NetworkError that was not sent", async () => {
    const closed = await startStandIn();
    await closed.close();
    const nowhere = makeClient(closed.url, { retry: { maxAttempts: 1 } });
    clients.push(nowhere);
    const error = (await nowhere.listJobs(ROUTER_ID).catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ requestSent: false, causeCode: "ECONNREFUSED", code: "RJ_ERR_NETWORK" });
    expect(error.message).toContain(`cannot reach the service at ${closed.url}`);
  });

  it("passes a caller's abort through unchanged", async () => {
    service.script({ hang: true });
    const controller = new AbortController();
    const start = service.requests.length;
    const listing = client.listJobs(ROUTER_ID, { signal: controller.signal });
    // Aborted while the service holds the request.
    await waitFor(() => service.requests.length > start, { what: "the request to reach the service" });
    controller.abort(new Error("stop"));
    await expect(listing).rejects.toThrow("stop");
  });

  it("passes a caller's abort through unchanged while waiting to retry", async () => {
    let retrying = () => {};
    const waitingToRetry = new Promise<void>((resolve) => {
      retrying = resolve;
    });
    const patient = makeClient(service.url, {
      retry: { baseDelayMs: 5000, maxDelayMs: 5000 },
      logger: { debug: (message) => message.startsWith("retrying ") && retrying() },
    });
    clients.push(patient);
    service.script({ status: 503, body: "down", headers: { "retry-after": "5" } });
    const controller = new AbortController();
    const listing = patient.listJobs(ROUTER_ID, { signal: controller.signal });
    // Aborted once the client has taken the 503 and decided to wait 5 s before retrying.
    await within(waitingToRetry, { what: "the client to wait to retry the 503" });
    controller.abort(new Error("stop waiting"));
    await expect(listing).rejects.toThrow("stop waiting");
  });
});
