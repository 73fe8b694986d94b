// Drives the stand-in with plain undici requests (never our client), so these tests pin what the stand-in
// claims about the public service: both API generations, auth, limits, errors, the fake device, notifications.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Agent, type Dispatcher, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { scratchDir } from "../helpers/scratch.js";
import { type StandIn, type StandInOptions, startStandIn } from "./standin.js";
import { startReceiver } from "./test-receiver.js";

const SITE = "6f1c2a9e-0b7d-4e8a-9c51-3d2f4a6b8c01";
const SITE_2 = "6f1c2a9e-0b7d-4e8a-9c51-3d2f4a6b8c02";
const FOREIGN_SITE = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
const SPEC_TOKEN = `${randomUUID()}:${randomUUID()}:${"Ab3".repeat(20)}xy`;
const JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0ZWFtLWEifQ.c2lnbmF0dXJlLWJ5dGVz";
/** A console API key of the newest edition's documented shape, `alto_sk_...`. */
const CONSOLE_KEY = "alto_sk_Q2hhbmdlTWUgUGxlYXNlX3NlY3JldA";
const FOREIGN_TOKEN = "another-team-key";

const started: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((thing) => thing.close()));
});

async function standIn(options: Partial<StandInOptions> = {}): Promise<StandIn> {
  const instance = await startStandIn({
    teams: [
      { id: randomUUID(), tokens: [SPEC_TOKEN, JWT, CONSOLE_KEY], sites: [SITE, SITE_2] },
      { id: randomUUID(), tokens: [FOREIGN_TOKEN], sites: [FOREIGN_SITE] },
    ],
    tickMs: 3_600_000, // a test ticks by hand, so nothing moves unless it says so
    ...options,
  });
  started.push(instance);
  return instance;
}

interface CallOptions {
  token?: string | null;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  dispatcher?: Dispatcher;
}
// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected loosely, field by field
type Answer = { status: number; headers: Record<string, unknown>; body: any };
async function call(
  target: StandIn,
  method: "GET" | "POST",
  path: string,
  options: CallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== null) headers.authorization = `Bearer ${options.token ?? SPEC_TOKEN}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.text !== undefined) {
    headers["content-type"] ??= "text/plain";
    body = options.text;
  }
  const response = await request(`${target.url}${path}`, {
    method,
    headers,
    body,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    body: text ? JSON.parse(text) : undefined,
  };
}

const submitA = (target: StandIn, fields: Record<string, unknown>, headers?: Record<string, string>) =>
  call(target, "POST", `/api/asynchronous/${SITE}`, { json: { description: "a job", ...fields }, headers });
const submitB = (target: StandIn, script: string, headers: Record<string, string> = {}) =>
  call(target, "POST", `/sites/${SITE}/jobs`, {
    text: script,
    headers: { "x-idempotency-key": randomUUID(), "x-description": "a job", ...headers },
  });

describe("API A (the spec's endpoints)", () => {
  it("answers 200 with its own fresh idempotency key, ignoring both idempotency headers", async () => {
    const target = await standIn();
    const sentKey = randomUUID();
    const headers = { "idempotency-key": sentKey, "x-idempotency-key": sentKey };
    const first = await submitA(target, { script: "/system/identity/print" }, headers);
    const second = await submitA(target, { script: "/system/identity/print" }, headers);
    expect(first.status).toBe(200);
    expect(first.body.status).toBe("success");
    expect(Object.keys(first.body.data).sort()).toEqual([
      "date",
      "idempotency_key",
      "notify_url",
      "request_id",
      "target",
    ]);
    expect(first.body.data.target).toBe(SITE);
    expect(first.body.data.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(first.body.data.idempotency_key).not.toBe(sentKey);
    expect(second.body.data.idempotency_key).not.toBe(first.body.data.idempotency_key);
    expect(target.jobs(SITE)).toHaveLength(2);
    const logged = target.requests().filter((entry) => entry.path.startsWith("/api/asynchronous"));
    expect(logged.map((entry) => [entry.headers["x-idempotency-key"], entry.status])).toEqual([
      [sentKey, 200],
      [sentKey, 200],
    ]);
    expect(logged.every((entry) => !("authorization" in entry.headers))).toBe(true);
  });

  it("defaults needs_acknowledgement to false (completed at once, still runs) unless told otherwise", async () => {
    const target = await standIn();
    await submitA(target, { script: ":log info one" });
    const [job] = target.jobs(SITE);
    expect(job?.status).toBe("completed");
    expect(target.runs(SITE)).toHaveLength(0);
    const executed = target.waitFor((event) => event.kind === "executed");
    target.tick();
    await executed;
    expect(target.runs(SITE).map((run) => run.script)).toEqual([":log info one"]);

    const strict = await standIn({ needsAckDefault: true });
    await submitA(strict, { script: ":log info two" });
    expect(strict.jobs(SITE)[0]?.status).toBe("pending");
  });

  it("lists jobs newest first with status, and answers 404 when the legacy list is switched off", async () => {
    const target = await standIn({ needsAckDefault: true });
    await submitA(target, { description: "first", script: ":log info 1" });
    await submitA(target, { description: "second", script: ":log info 2" });
    const list = await call(target, "GET", `/api/routers/${SITE}/jobs`);
    expect(list.status).toBe(200);
    expect(list.body.status).toBe("success");
    expect(list.body.data.map((job: { description: string }) => job.description)).toEqual([
      "second",
      "first",
    ]);
    expect(Object.keys(list.body.data[0]).sort()).toEqual(
      [
        "completed_at",
        "deleted_at",
        "description",
        "express_execute",
        "failed_at",
        "id",
        "idempotency_key",
        "make_backup",
        "needs_acknowledgement",
        "started_at",
        "status",
        "token",
      ].sort(),
    );
    expect(list.body.data[0].status).toBe("pending");
    const without = await standIn({ legacyJobList: false });
    expect((await call(without, "GET", `/api/routers/${SITE}/jobs`)).status).toBe(404);
  });

  it("answers synchronous prints with the spec's keys and string values", async () => {
    const target = await standIn();
    const arp = await call(target, "POST", `/api/synchronous/${SITE}`, {
      json: { command: "/ip/arp/print" },
    });
    expect(arp.status).toBe(200);
    expect(arp.body.status).toBe("success");
    expect(Object.keys(arp.body.data[0]).sort()).toEqual(
      [
        "id",
        "address",
        "mac_address",
        "interface",
        "published",
        "invalid",
        "DHCP",
        "dynamic",
        "complete",
        "disabled",
      ].sort(),
    );
    expect(arp.body.data[0].DHCP).toBe("true");
    const one = await call(target, "POST", `/api/synchronous/${SITE}`, {
      json: { command: "/interface/print", parameters: "?name=ether2" },
    });
    expect(one.body.data).toEqual([
      expect.objectContaining({ name: "ether2", mtu: "1500", running: "false" }),
    ]);
    const execute = await call(target, "POST", `/api/synchronous/${SITE}`, {
      json: { command: "/execute", parameters: '=script=:error "bad value"' },
    });
    expect(execute.body).toEqual({ status: "success", data: [] }); // the change ran; its error went to the log
    expect(target.runs(SITE)).toEqual([
      expect.objectContaining({ jobId: null, script: ':error "bad value"' }),
    ]);
    expect(target.deviceLog(SITE).map((line) => line.message)).toEqual(["bad value"]);
    const unknown = await call(target, "POST", `/api/synchronous/${SITE}`, {
      json: { command: "/nothing/print" },
    });
    expect(unknown).toMatchObject({ status: 422, body: { errors: { command: ["no such command prefix"] } } });
  });
});

describe("API B (sites/jobs)", () => {
  it("creates a bare job from a text/plain script and honours X-Idempotency-Key", async () => {
    const target = await standIn();
    const key = randomUUID();
    const first = await submitB(target, ":log info hi", { "x-idempotency-key": key });
    const again = await submitB(target, ":log info changed", { "x-idempotency-key": key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(first.body).toMatchObject({ site_id: SITE, idempotency_key: key, script: ":log info hi" });
    expect(first.body).toMatchObject({
      needs_acknowledgement: true,
      should_backup: false,
      express_execute: false,
    });
    expect(first.body).not.toHaveProperty("status");
    expect(target.jobs(SITE)).toHaveLength(1);
    const other = await call(target, "POST", `/site/${SITE}/job`, {
      text: ":log info other spelling",
      headers: { "x-idempotency-key": randomUUID(), "x-description": "spelt /site/.../job" },
    });
    expect(other.status).toBe(201);
    const asJson = await call(target, "POST", `/sites/${SITE}/jobs`, {
      json: { script: ":log info x" },
      headers: { "x-idempotency-key": randomUUID(), "x-description": "sent as JSON" },
    });
    expect(asJson.status).toBe(415);
  });

  it("lists a bare array, newest first, with no status or seq_id, the state readable from timestamps", async () => {
    const target = await standIn({ holdJobs: true });
    const older = await submitB(target, ":log info 1", { "x-description": "older" });
    const started = target.onceJobStarted(SITE);
    const newer = await submitB(target, ":log info 2", {
      "x-description": "newer",
      "x-express-execute": "true",
    });
    expect((await started).job.id).toBe(older.body.id); // the scheduler works in submission order
    const list = await call(target, "GET", `/site/${SITE}/job`);
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.map((job: { id: string }) => job.id)).toEqual([newer.body.id, older.body.id]);
    expect(Object.keys(list.body[0]).sort()).toEqual(
      [
        "associated_backup",
        "completed_at",
        "created_at",
        "description",
        "express_execute",
        "failed_at",
        "id",
        "idempotency_key",
        "log_url",
        "needs_acknowledgement",
        "script",
        "should_backup",
        "site_id",
        "started_at",
        "token",
      ].sort(),
    );
    expect(list.body[1].started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(list.body[1].completed_at).toBeNull();
    expect(list.body[0].started_at).toBeNull();
    target.release(older.body.id);
    target.release(newer.body.id);
    await target.waitForStatus(newer.body.id, "completed");
    const after = await call(target, "GET", `/sites/${SITE}/jobs`);
    expect(after.body.every((job: { completed_at: string | null }) => job.completed_at !== null)).toBe(true);
  });

  it("lists a site's backups newest first and answers one's export, named as the job's associated_backup", async () => {
    // GIVEN two express jobs with a backup, one after the other
    const target = await standIn();
    const backedUp = async (script: string) => {
      const job = await submitB(target, script, { "x-backup": "true", "x-express-execute": "true" });
      await target.waitForStatus(job.body.id, "completed");
      return (await call(target, "GET", `/site/${SITE}/job/${job.body.id}`)).body;
    };
    const first = await backedUp(":log info first");
    const second = await backedUp(":log info second");
    // WHEN the backups are listed, by either spelling
    const listed = await call(target, "GET", `/backup/${SITE}`);
    expect(listed.status).toBe(200);
    expect((await call(target, "GET", `/sites/${SITE}/backups`)).body).toEqual(listed.body);
    // THEN newest first, each file the part of its job's associated_backup after the /
    expect(listed.body.map((item: { filename: string }) => `${SITE}/${item.filename}`)).toEqual([
      second.associated_backup,
      first.associated_backup,
    ]);
    expect(listed.body[0].filename).toMatch(/^\d+\.rsc$/);
    expect(Object.keys(listed.body[0]).sort()).toEqual(["created_at", "date", "filename", "size", "time"]);
    // AND the second backup holds what ran before it, as JSON content or, with X-View, as text
    const one = await call(target, "GET", `/backup/${SITE}/${listed.body[0].filename}`);
    expect(one.body.content).toContain(":log info first");
    expect(one.body.content).not.toContain(":log info second");
    expect(listed.body[0].size).toBe(Buffer.byteLength(one.body.content));
    const text = await request(`${target.url}/backup/${SITE}/${listed.body[0].filename}`, {
      headers: { authorization: `Bearer ${SPEC_TOKEN}`, "x-view": "1" },
    });
    expect(text.headers["content-type"]).toMatch(/^text\/plain/);
    expect(await text.body.text()).toBe(one.body.content);
    // AND an unknown file and another team's site are 404
    expect((await call(target, "GET", `/backup/${SITE}/0.rsc`)).status).toBe(404);
    expect((await call(target, "GET", `/backup/${FOREIGN_SITE}`)).status).toBe(404);
  });

  it("answers synchronous commands with the raw RouterOS reply and refuses writes", async () => {
    const target = await standIn();
    const path = `/sites/${SITE}/commands/synchronous`;
    const raw = await call(target, "POST", path, {
      json: { command: "/interface/print", parameters: ["?name=ether1"] },
    });
    expect(raw.status).toBe(200);
    expect(raw.body).toEqual([
      {
        ".id": "*1",
        name: "ether1",
        type: "ether",
        mtu: 1500,
        "mac-address": "4C:5E:0C:00:00:01",
        running: true,
        disabled: false,
      },
    ]);
    const write = await call(target, "POST", path, {
      json: { command: "/execute", parameters: ["=script=:log info x"] },
    });
    expect(write.status).toBe(422);
    expect(write.body.errors.command).toEqual(["The command must be read-only."]);
    const words = await call(target, "POST", path, {
      json: { command: "/interface/print", parameters: "?name=ether1" },
    });
    expect(words.body.errors).toHaveProperty("parameters");
  });
});

describe("the fake device", () => {
  it("fails a script with :error, keeps the text out of the job and puts it in the router's log", async () => {
    const target = await standIn();
    const job = await submitB(target, ':log info before; :error "failure: already have such address"', {
      "x-express-execute": "true",
    });
    await target.waitForStatus(job.body.id, "failed");
    const [listed] = (await call(target, "GET", `/sites/${SITE}/jobs`)).body;
    expect(listed.failed_at).not.toBeNull();
    expect(listed.completed_at).toBeNull();
    const { script: _script, ...withoutScript } = listed;
    expect(JSON.stringify(withoutScript)).not.toContain("already have such address");
    const log = await call(target, "POST", `/api/synchronous/${SITE}`, { json: { command: "/log/print" } });
    expect(log.body.data).toEqual([
      expect.objectContaining({ topics: "script,error", message: "failure: already have such address" }),
    ]);
    expect(log.body.data[0].time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it("runs one job at a time per site behind the gate, and counts every execution", async () => {
    const target = await standIn({ holdJobs: true });
    const first = await submitB(target, "/ip/address/add address=10.0.0.1/24 interface=ether1", {
      "x-description": "one",
    });
    const second = await submitB(target, "/ip/address/add address=10.0.0.2/24 interface=ether1", {
      "x-description": "two",
    });
    const firstStarted = target.onceJobStarted(SITE);
    target.tick();
    await firstStarted;
    expect(target.job(second.body.id)?.status).toBe("pending");
    const secondStarted = target.onceJobStarted(SITE);
    target.release(first.body.id);
    expect((await secondStarted).job.id).toBe(second.body.id);
    expect(target.job(first.body.id)?.status).toBe("completed");
    target.release();
    await target.waitForStatus(second.body.id, "completed");
    expect(target.runs(SITE).map((run) => run.description)).toEqual(["one", "two"]);
    expect(target.runs(SITE_2)).toEqual([]);
  });

  it("deletes a pending job (it never runs) and records the backup path when asked", async () => {
    const target = await standIn({ needsAckDefault: true });
    await submitA(target, { description: "doomed", script: ":log info doomed" });
    const doomed = target.jobs(SITE)[0];
    expect(target.deleteJob(doomed?.id ?? "")).toBe(true);
    await submitA(target, {
      description: "kept",
      script: ":log info kept",
      make_backup: true,
      express_execute: true,
    });
    const kept = target.jobs(SITE)[0];
    await target.waitForStatus(kept?.id ?? "", "completed");
    expect(target.runs(SITE).map((run) => run.description)).toEqual(["kept"]);
    const legacy = (await call(target, "GET", `/api/routers/${SITE}/jobs`)).body.data;
    expect(legacy.map((job: { status: string }) => job.status)).toEqual(["completed", "deleted"]);
    const sites = (await call(target, "GET", `/sites/${SITE}/jobs`)).body;
    expect(sites).toHaveLength(1);
    expect(sites[0].associated_backup).toMatch(new RegExp(`^${SITE}/\\d{10}\\.rsc$`));
    expect(target.deleteJob(kept?.id ?? "")).toBe(false); // a job with an outcome stays as it is
  });
});

describe("authentication, limits and errors", () => {
  it("accepts tokens of any configured shape and hides other teams' sites", async () => {
    const target = await standIn();
    for (const token of [SPEC_TOKEN, JWT, CONSOLE_KEY]) {
      expect((await call(target, "GET", `/sites/${SITE}/jobs`, { token })).status).toBe(200);
    }
    const unknown = await call(target, "GET", `/sites/${SITE}/jobs`, { token: "nope" });
    expect(unknown).toMatchObject({ status: 401, body: { message: "Unauthenticated." } });
    expect((await call(target, "GET", `/sites/${SITE}/jobs`, { token: null })).status).toBe(401);
    expect((await call(target, "GET", `/sites/${FOREIGN_SITE}/jobs`)).status).toBe(404);
    expect((await submitA(target, { script: "x" }, {})).status).toBe(200);
    const foreign = await call(target, "POST", `/api/asynchronous/${SITE}`, {
      token: FOREIGN_TOKEN,
      json: { description: "x", script: "x" },
    });
    expect(foreign.status).toBe(404);
  });

  it("throttles per token with Laravel's 429, with or without Retry-After", async () => {
    const target = await standIn({ rateLimitMax: 2 });
    const path = `/sites/${SITE}/jobs`;
    const [one, two, three] = [
      await call(target, "GET", path),
      await call(target, "GET", path),
      await call(target, "GET", path),
    ];
    expect([one.status, two.status, three.status]).toEqual([200, 200, 429]);
    expect(two.headers["x-ratelimit-remaining"]).toBe("0");
    expect(three.body).toEqual({ message: "Too Many Attempts." });
    expect(three.headers["x-ratelimit-limit"]).toBe("2");
    expect(Number(three.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(three.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect((await call(target, "GET", path, { token: JWT })).status).toBe(200);

    const silent = await standIn({ rateLimitMax: 1, retryAfterHeader: false });
    await call(silent, "GET", path);
    const refused = await call(silent, "GET", path);
    expect(refused.status).toBe(429);
    expect(refused.headers).not.toHaveProperty("retry-after");
  });

  it("answers invalid input with Laravel's 422 naming each field and its limit", async () => {
    const target = await standIn();
    const bad = await call(target, "POST", `/api/asynchronous/${SITE}`, {
      json: { script: "x".repeat(2001), notify_url: "http://example.test/hook", make_backup: "maybe" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe("The description field is required. (and 3 more errors)");
    expect(bad.body.errors).toEqual({
      description: ["The description field is required."],
      script: ["The script field must not be greater than 2000 characters."],
      make_backup: ["The make backup field must be true or false."],
      notify_url: ["The notify url field must start with one of the following: https."],
    });
    const tooLong = await submitA(target, { description: "d".repeat(101), script: "x" });
    expect(tooLong.body.errors.description).toEqual([
      "The description field must not be greater than 100 characters.",
    ]);
    const headers = await submitB(target, ":log info x", {
      "x-idempotency-key": "not-a-uuid",
      "x-description": "ab",
    });
    expect(headers.status).toBe(422);
    expect(Object.keys(headers.body.errors).sort()).toEqual(["x-description", "x-idempotency-key"]);
    expect(headers.body.errors["x-description"]).toEqual([
      "The x-description field must be at least 3 characters.",
    ]);
  });

  it("takes scripts of 3 to 10000 characters on API B, as the newer edition documents", async () => {
    const target = await standIn();
    expect((await submitB(target, ":pu")).status).toBe(201);
    expect((await submitB(target, "x".repeat(10_000))).status).toBe(201);
    const short = await submitB(target, ":p");
    expect(short.status).toBe(422);
    expect(short.body.errors.script).toEqual(["The script field must be at least 3 characters."]);
    const long = await submitB(target, "x".repeat(10_001));
    expect(long.status).toBe(422);
    expect(long.body.errors.script).toEqual(["The script field must not be greater than 10000 characters."]);
  });
});

describe("notifications and transport", () => {
  it("posts the minimal payload at each moment, retrying a failed delivery", async () => {
    const receiver = await startReceiver(1);
    started.push(receiver);
    const target = await standIn({
      notifyCa: receiver.ca,
      notifyRetryDelaysMs: [10, 10],
      needsAckDefault: true,
    });
    await submitA(target, { script: ":log info ok", notify_url: receiver.url, express_execute: true });
    await receiver.until(3);
    const jobId = target.jobs(SITE)[0]?.id;
    expect(new Set(receiver.received.map((body) => JSON.stringify(body)))).toEqual(
      new Set(["loaded", "running", "completed"].map((status) => JSON.stringify({ job_id: jobId, status }))),
    );
    await target.notificationsSettled();
    const deliveries = target.notifications();
    expect(deliveries.map((delivery) => delivery.attempts).sort()).toEqual([1, 1, 2]);
    expect(deliveries.every((delivery) => delivery.delivered)).toBe(true);
  });

  it("posts the spec's payload when asked, with the failed state", async () => {
    const receiver = await startReceiver();
    started.push(receiver);
    const target = await standIn({ notifyCa: receiver.ca, notificationShape: "spec", needsAckDefault: true });
    await submitA(target, {
      script: ':error "no such item"',
      notify_url: receiver.url,
      express_execute: true,
    });
    await receiver.until(3);
    const failed = receiver.received.find((body) => body.status === "failed");
    expect(failed).toMatchObject({
      router_id: SITE,
      needs_acknowledgement: true,
      make_backup: false,
      deleted_at: null,
    });
    expect(Object.keys(failed ?? {}).sort()).toEqual(
      [
        "job_id",
        "customer_id",
        "description",
        "router_id",
        "idempotency_key",
        "express_execute",
        "needs_acknowledgement",
        "make_backup",
        "seq_id",
        "started_at",
        "completed_at",
        "failed_at",
        "deleted_at",
        "status",
      ].sort(),
    );
    expect(typeof failed?.seq_id).toBe("number");
    expect(failed?.failed_at).toEqual(expect.any(String));
  });

  it("serves HTTPS with a certificate it exposes as ca", async () => {
    const target = await standIn({ tls: true });
    expect(target.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const dispatcher = new Agent({ connect: { ca: target.ca } });
    started.push(dispatcher);
    expect((await call(target, "GET", `/sites/${SITE}/jobs`, { dispatcher })).status).toBe(200);
    await expect(call(target, "GET", `/sites/${SITE}/jobs`)).rejects.toThrow();
  });

  it("runs as its own process from a JSON config and exits on SIGTERM", async () => {
    const folder = scratchDir("standin-");
    const config = join(folder, "config.json");
    writeFileSync(config, JSON.stringify({ teams: [{ id: "team", tokens: [CONSOLE_KEY], sites: [SITE] }] }));
    const child = spawn(process.execPath, ["--import", "tsx", "test/standin/main.ts", "--config", config], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = once(child, "exit");
    const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
    const { url } = JSON.parse(line) as { url: string };
    const response = await request(`${url}/sites/${SITE}/jobs`, {
      headers: { authorization: `Bearer ${CONSOLE_KEY}` },
    });
    expect(await response.body.json()).toEqual([]);
    child.kill("SIGTERM");
    expect((await exited)[0]).toBe(0);
  });
});
