/**
 * The client's `sdx` profile (the public service's sites API) against both things that speak it: the stand-in
 * written from ALTOSTRAT.md alone (test/standin, API B) and our own service's `/sites/...` routes. The same
 * behaviour is asserted against each, so that our client and our service cannot agree on one misreading.
 */
import { randomUUID } from "node:crypto";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../src/client/errors.js";
import {
  NetworkError,
  RouterJobsClient,
  type RouterJobsClientOptions,
  shouldRetry,
  ValidationError,
} from "../../src/client/index.js";
import type { JobListItem } from "../../src/contract/job.js";
import { FaultProxy } from "../helpers/fault-proxy.js";
import { ROUTER_A, ROUTER_A2, startTestService, type TestService, TOKEN_A } from "../service/harness.js";
import { type StandIn, startStandIn } from "../standin/standin.js";
import { tempBudgetDir } from "./helpers/make-client.js";

const STANDIN_TOKEN = "ak_live_sdx+profile/7Hq9==";

/** What a test needs of a service that speaks the sites API. */
interface SitesTarget {
  /** A client of the `sdx` profile, with a fresh budget. */
  client(overrides?: Partial<RouterJobsClientOptions>): RouterJobsClient;
  /** Express jobs run here at once. */
  readonly busySite: string;
  /** Nothing runs here during the tests (no express job, a long tick): a job stays pending. */
  readonly quietSite: string;
  /** `GET /sites/{id}/jobs` as the service sends it, without the client's reading. */
  rawList(siteId: string): Promise<unknown>;
}

const job = (overrides: Record<string, unknown> = {}) => ({
  description: "set identity",
  script: "/system identity set name=sdx-quiet",
  make_backup: true,
  express_execute: false,
  needs_acknowledgement: true,
  ...overrides,
});

/** The behaviour both services must show to a client of the `sdx` profile. */
function describeSitesApi(
  name: string,
  setUp: () => Promise<{ target: SitesTarget; close(): Promise<void> }>,
) {
  describe(`client (sdx profile) against ${name}`, () => {
    let target: SitesTarget;
    let client: RouterJobsClient;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ target, close } = await setUp());
      client = target.client();
    });
    afterAll(async () => {
      await client?.close();
      await close?.();
    });
    const listed = async (siteId: string, id: string): Promise<JobListItem | undefined> =>
      (await client.listJobs(siteId)).find((item) => item.id === id);

    it("submits without a description (X-Description is optional in this edition) and lists it with no text", async () => {
      // GIVEN a job without a description
      const { description: _left, ...bare } = job();
      // WHEN it is submitted through the sites API
      const { ack } = await client.submitJob(target.quietSite, bare);
      // THEN the service took it, and lists it with no description (null or empty on the wire, "" to the client)
      const raw = (await target.rawList(target.quietSite)) as { id: string; description: unknown }[];
      expect([null, ""]).toContain(raw.find((item) => item.id === ack.request_id)?.description);
      expect((await listed(target.quietSite, ack.request_id))?.description).toBe("");
    });

    it("submits: the bare job answered becomes the client's acknowledgement, its metadata as sent", async () => {
      // GIVEN a job with a backup, no express execution, acknowledgement needed
      const key = randomUUID();
      // WHEN it is submitted with a key of ours
      const { ack, idempotencyKey } = await client.submitJob(target.quietSite, job(), {
        idempotencyKey: key,
      });
      // THEN the acknowledgement has the spec's shape: our key, the job's id as request_id, the site as target
      expect(idempotencyKey).toBe(key);
      expect(ack).toMatchObject({
        idempotency_key: key,
        request_id: ack.job_id,
        target: target.quietSite,
        notify_url: null,
      });
      expect(ack.date).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      // AND the service holds the script and every header's value
      const item = await listed(target.quietSite, ack.request_id);
      expect(item).toMatchObject({
        idempotency_key: key,
        description: "set identity",
        script: "/system identity set name=sdx-quiet",
        make_backup: true,
        express_execute: false,
        needs_acknowledgement: true,
        status: "pending",
      });
      expect(item?.created_at).toBe(ack.date);
    });

    it("takes a script of 10000 characters, the sites API's limit, and refuses one more before sending", async () => {
      // GIVEN a script five times the spec's limit, at the sites API's own
      const script = `:log info "${"x".repeat(10_000 - 12)}"`;
      // WHEN it is submitted through the sdx profile
      const { ack } = await client.submitJob(target.quietSite, job({ script }));
      // THEN the service keeps all of it
      expect((await listed(target.quietSite, ack.request_id))?.script).toBe(script);
      // AND one character more is refused by the client, naming the profile and its limit
      const refused = await client
        .submitJob(target.quietSite, job({ script: `${script}x` }))
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).details).toEqual([
        { field: "script", message: "script must be at most 10000 characters on the sdx API (got 10001)" },
      ]);
    });

    it("honours the key: a resubmission with the same key answers the same job and makes no other", async () => {
      const key = randomUUID();
      const first = await client.submitJob(target.quietSite, job({ description: "once only" }), {
        idempotencyKey: key,
      });
      const again = await client.submitJob(target.quietSite, job({ description: "once only" }), {
        idempotencyKey: key,
      });
      expect(again.ack.request_id).toBe(first.ack.request_id);
      const withKey = (await client.listJobs(target.quietSite)).filter(
        (item) => item.idempotency_key === key,
      );
      expect(withKey.map((item) => item.id)).toEqual([first.ack.request_id]);
    });

    it("lists a bare array without status or seq_id, and reads each job's state from its timestamps", async () => {
      // GIVEN a job nobody runs, one that needs no acknowledgement, and an express one that runs at once
      const pending = await client.submitJob(target.quietSite, job({ description: "waits" }));
      const unacked = await client.submitJob(
        target.quietSite,
        job({ description: "fire and forget", needs_acknowledgement: false }),
      );
      const express = await client.submitJob(
        target.busySite,
        job({ description: "runs now", script: "/system identity set name=sdx-busy", express_execute: true }),
      );
      // THEN the service's answer is a bare array whose jobs carry no status and no seq_id
      const raw = (await target.rawList(target.quietSite)) as Record<string, unknown>[];
      expect(Array.isArray(raw)).toBe(true);
      expect(raw.length).toBeGreaterThan(0);
      for (const item of raw) {
        expect(item).not.toHaveProperty("status");
        expect(item).not.toHaveProperty("seq_id");
        expect(item).toHaveProperty("should_backup");
      }
      // AND the client reads pending, completed (at submission) and, once it ran, completed
      expect((await listed(target.quietSite, pending.ack.request_id))?.status).toBe("pending");
      const done = await listed(target.quietSite, unacked.ack.request_id);
      expect(done).toMatchObject({ status: "completed", needs_acknowledgement: false });
      expect(done?.seq_id).toBeUndefined();
      await vi.waitFor(
        async () => expect((await listed(target.busySite, express.ack.request_id))?.status).toBe("completed"),
        { timeout: 15_000, interval: 100 },
      );
    });

    it("exec: the typed raw records come back with the spec's keys, every value a string", async () => {
      const [ether1, ...others] = await client.execute(target.busySite, "/interface/print", "?name=ether1");
      expect(others).toEqual([]);
      expect(ether1).toMatchObject({
        id: "*1",
        name: "ether1",
        mac_address: expect.stringMatching(/^([0-9A-F]{2}:){5}[0-9A-F]{2}$/),
        mtu: "1500",
        running: "true",
        disabled: "false",
      });
      expect(Object.keys(ether1 ?? {})).not.toContain(".id");
      expect(Object.keys(ether1 ?? {})).not.toContain("mac-address");
      for (const value of Object.values(ether1 ?? {})) expect(typeof value).toBe("string");
    });

    it("exec: the parameters string travels as separate API words (a query and a .proplist)", async () => {
      const records = await client.execute(
        target.busySite,
        "/interface/print",
        "=.proplist=name,mtu ?name=ether2",
      );
      expect(records).toEqual([{ name: "ether2", mtu: "1500" }]);
    });

    it("exec: a command that would write is refused by the service, as an ApiError", async () => {
      const refused = await client
        .execute(target.busySite, "/system/identity/set", "=name=nope")
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).statusCode).toBe(422);
      // Each service words it its own way; both name the field and say why.
      expect((refused as ApiError).details).toEqual([
        { field: "command", message: expect.stringMatching(/read-only/) },
      ]);
    });

    it("getJob reads one job by id: the list's item, with its status, and a 404 ApiError for an unknown one", async () => {
      const { ack } = await client.submitJob(target.quietSite, job({ description: "one job read" }));
      const id = ack.job_id as string;
      const one = await client.getJob(target.quietSite, id);
      expect(one).toEqual(await listed(target.quietSite, id));
      expect(one).toMatchObject({ id, status: "pending", make_backup: true });
      const missing = await client.getJob(target.quietSite, randomUUID()).catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(ApiError);
      expect((missing as ApiError).statusCode).toBe(404);
    });

    it("cancelJob removes a job that has not started: then not found, not listed", async () => {
      const { ack } = await client.submitJob(target.quietSite, job({ description: "to be cancelled" }));
      const id = ack.job_id as string;
      await client.cancelJob(target.quietSite, id);
      const gone = await client.getJob(target.quietSite, id).catch((error: unknown) => error);
      expect((gone as ApiError).statusCode).toBe(404);
      expect(await listed(target.quietSite, id)).toBeUndefined();
    });

    it("cancelJob of a completed job is an ApiError with the documented code, type and doc URL", async () => {
      const { ack } = await client.submitJob(
        target.busySite,
        job({ description: "done first", express_execute: true }),
      );
      const id = ack.job_id as string;
      await vi.waitFor(async () =>
        expect((await client.getJob(target.busySite, id)).status).toBe("completed"),
      );
      const refused = await client.cancelJob(target.busySite, id).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApiError);
      // The status code is not documented (our service 409, the stand-in 400): the body's code says it.
      expect(refused).toMatchObject({
        apiCode: "job_already_started",
        errorType: "invalid_request_error",
        docUrl: "https://docs.altostrat.io/errors/job_already_started",
        raw: undefined,
      });
      expect((await client.getJob(target.busySite, id)).status).toBe("completed");
    });

    it("listBackups and getBackup: the backup a job took, named by its associated_backup, its export as text", async () => {
      // GIVEN a job that took a backup and ran
      const { ack } = await client.submitJob(
        target.busySite,
        job({ description: "backed up", script: ":log info backed-up", express_execute: true }),
      );
      const id = ack.job_id as string;
      const done = await vi.waitFor(async () => {
        const read = await client.getJob(target.busySite, id);
        expect(read.status).toBe("completed");
        return read;
      });
      // WHEN the site's backups are listed
      const backups = await client.listBackups(target.busySite);
      // THEN the newest is the job's, by the part of associated_backup after any "/"
      const name = String(done.associated_backup).split("/").at(-1);
      expect(backups[0]?.filename).toBe(name);
      expect(backups[0]?.created_at).toEqual(expect.any(String));
      // AND its export reads as text
      const content = await client.getBackup(target.busySite, backups[0]?.filename ?? "");
      expect(content.length).toBeGreaterThan(0);
      // AND an unknown file is a 404 ApiError, a name with a "/" refused before sending
      await expect(client.getBackup(target.busySite, "0.rsc")).rejects.toMatchObject({ statusCode: 404 });
      await expect(client.getBackup(target.busySite, "../x")).rejects.toThrow(
        /filename must be a backup's file name/,
      );
    });
  });
}

describeSitesApi("the stand-in's API B (written from ALTOSTRAT.md)", async () => {
  const busySite = randomUUID();
  const quietSite = randomUUID();
  // A tick far away: only express submissions run anything.
  const standIn = await startStandIn({
    teams: [{ id: randomUUID(), tokens: [STANDIN_TOKEN], sites: [busySite, quietSite] }],
    tickMs: 600_000,
    rateLimitMax: 10_000,
  });
  const target: SitesTarget = {
    busySite,
    quietSite,
    client: (overrides) => standInClient(standIn, overrides),
    rawList: async (siteId) => {
      const response = await request(`${standIn.url}/sites/${siteId}/jobs`, {
        headers: { authorization: `Bearer ${STANDIN_TOKEN}` },
      });
      return response.body.json();
    },
  };
  return { target, close: () => standIn.close() };
});

describeSitesApi("our service's sites API", async () => {
  const svc = await startTestService({ tickMs: 600_000, rateLimit: { count: 10_000, windowMs: 1000 } });
  const target: SitesTarget = {
    busySite: ROUTER_A,
    quietSite: ROUTER_A2,
    client: (overrides) => serviceClient(svc, overrides),
    rawList: async (siteId) => (await svc.call("GET", `/sites/${siteId}/jobs`)).body,
  };
  return { target, close: () => svc.close() };
});

function standInClient(standIn: StandIn, overrides: Partial<RouterJobsClientOptions> = {}) {
  return new RouterJobsClient({
    baseUrl: standIn.url,
    token: STANDIN_TOKEN,
    api: "sdx",
    budgetDir: tempBudgetDir(),
    rateLimit: { count: 1000, windowMs: 1000 },
    retry: { baseDelayMs: 10, maxDelayMs: 50 },
    deadlineMs: 20_000,
    ...overrides,
  });
}

function serviceClient(svc: TestService, overrides: Partial<RouterJobsClientOptions> = {}) {
  return new RouterJobsClient({
    baseUrl: svc.url,
    token: TOKEN_A,
    ca: svc.service.ca,
    api: "sdx",
    budgetDir: tempBudgetDir(),
    rateLimit: { count: 1000, windowMs: 1000 },
    deadlineMs: 20_000,
    ...overrides,
  });
}

describe("client (sdx profile): what only the stand-in can show", () => {
  const siteId = randomUUID();
  /** A site with nothing queued before the test that holds its jobs. */
  const raceSite = randomUUID();
  let standIn: StandIn;
  let client: RouterJobsClient;
  beforeAll(async () => {
    standIn = await startStandIn({
      teams: [{ id: randomUUID(), tokens: [STANDIN_TOKEN], sites: [siteId, raceSite] }],
      tickMs: 600_000,
      rateLimitMax: 10_000,
    });
    client = standInClient(standIn);
  });
  afterAll(async () => {
    await client?.close();
    await standIn?.close();
  });
  const posts = () => standIn.requests().filter((logged) => logged.method === "POST");

  it("the spec profile keeps no backups: listBackups and getBackup say so, naming the profile, and send nothing", async () => {
    const spec = standInClient(standIn, { api: "spec" });
    try {
      const before = standIn.requests().length;
      await expect(spec.listBackups(siteId)).rejects.toThrow(
        "the spec API keeps no backups of its own (a job's backup stays on the router); use --api sdx",
      );
      await expect(spec.getBackup(siteId, "1.rsc")).rejects.toBeInstanceOf(ValidationError);
      expect(spec.offersBackups).toBe(false);
      expect(standIn.requests().length).toBe(before);
    } finally {
      await spec.close();
    }
  });

  it("sends the script as text/plain and the metadata in X- headers, the booleans spelled out", async () => {
    const key = randomUUID();
    await client.submitJob(
      siteId,
      job({
        description: "headers",
        make_backup: false,
        express_execute: false,
        needs_acknowledgement: true,
      }),
      { idempotencyKey: key },
    );
    const sent = posts().at(-1);
    expect(sent?.path).toBe(`/sites/${siteId}/jobs`);
    expect(sent?.headers).toMatchObject({
      "content-type": expect.stringMatching(/^text\/plain/),
      "x-idempotency-key": key,
      "x-description": "headers",
      "x-needs-ack": "true",
      "x-backup": "false",
      "x-express-execute": "false",
    });
  });

  it("refuses, before sending, a description under 3 characters, naming X-Description and the limit", async () => {
    const before = standIn.requests().length;
    const refused = await client
      .submitJob(siteId, job({ description: "ab" }))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).details).toEqual([
      {
        field: "description",
        message:
          "description travels as X-Description in the sdx API, which takes 3 to 100 characters (got 2)",
      },
    ]);
    expect(standIn.requests().length).toBe(before);
  });

  it("refuses a notify_url (the sites API has none) and a description a header cannot carry", async () => {
    const before = standIn.requests().length;
    const withUrl = await client
      .submitJob(siteId, job({ notify_url: "https://hooks.example/rj" }))
      .catch((error: unknown) => error);
    expect(withUrl).toBeInstanceOf(ValidationError);
    expect((withUrl as Error).message).toContain("sdx jobs have no notify_url; use --api spec or poll");
    const twoLines = await client
      .submitJob(siteId, job({ description: "first line\nsecond line" }))
      .catch((error: unknown) => error);
    expect((twoLines as Error).message).toMatch(/X-Description header .* line breaks/);
    const padded = await client
      .submitJob(siteId, job({ description: " padded " }))
      .catch((error: unknown) => error);
    expect((padded as Error).message).toMatch(/cannot start or end with whitespace/);
    expect(standIn.requests().length).toBe(before);
  });

  it("resends a submission whose answer was lost, with the same key, and the service makes one job", async () => {
    // GIVEN a link that lets the first submission through and cuts the connection as the answer starts
    const proxy = await FaultProxy.start({ host: "127.0.0.1", port: Number(new URL(standIn.url).port) });
    const viaProxy = standInClient(standIn, { baseUrl: `http://127.0.0.1:${proxy.port}` });
    try {
      proxy.set({ resetOnResponse: true, times: 1 });
      const key = randomUUID();
      const before = posts().length;
      // WHEN the client submits
      const { ack } = await viaProxy.submitJob(siteId, job({ description: "lost answer" }), {
        idempotencyKey: key,
      });
      // THEN it sent twice with the same key, and the service holds exactly one job for it
      const sent = posts().slice(before);
      expect(sent.map((logged) => logged.headers["x-idempotency-key"])).toEqual([key, key]);
      expect(proxy.stats.broken).toBe(1);
      const jobs = (await client.listJobs(siteId)).filter((item) => item.idempotency_key === key);
      expect(jobs.map((item) => item.id)).toEqual([ack.request_id]);
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });

  it("cancel racing the start: a job that started is refused, and runs to its end, never both", async () => {
    // GIVEN a job the stand-in's device has started and holds before its outcome
    standIn.holdSite(raceSite);
    const { ack } = await client.submitJob(
      raceSite,
      job({ description: "started first", express_execute: true }),
    );
    const id = ack.job_id as string;
    await standIn.waitForStatus(id, "running");
    // WHEN it is cancelled
    const refused = await client.cancelJob(raceSite, id).catch((error: unknown) => error);
    // THEN the cancel says it started, and the job completes, not deleted
    expect(refused).toMatchObject({ apiCode: "job_already_started", statusCode: 400 });
    standIn.releaseSite(raceSite);
    await standIn.waitForStatus(id, "completed");
    expect(standIn.job(id)?.deletedAt).toBeNull();
    expect(standIn.runs(raceSite).filter((run) => run.jobId === id)).toHaveLength(1);
  });

  it("a job cancelled before the scheduler reaches it never runs", async () => {
    const { ack } = await client.submitJob(siteId, job({ description: "cancelled first" }));
    const id = ack.job_id as string;
    await client.cancelJob(siteId, id);
    standIn.tick();
    await standIn.waitForStatus(id, "deleted");
    const next = await client.submitJob(siteId, job({ description: "after", express_execute: true }));
    await standIn.waitForStatus(next.ack.job_id as string, "completed");
    expect(standIn.runs(siteId).map((run) => run.jobId)).not.toContain(id);
  });

  it("a host that routes only the v1 spelling of one job's path: read and cancel still work, by the other spelling", async () => {
    const v1Site = randomUUID();
    const v1 = await startStandIn({
      teams: [{ id: randomUUID(), tokens: [STANDIN_TOKEN], sites: [v1Site] }],
      tickMs: 600_000,
      rateLimitMax: 10_000,
      oneJobPaths: "v1",
    });
    const v1Client = standInClient(v1);
    try {
      const { ack } = await v1Client.submitJob(v1Site, job({ description: "v1 host" }));
      const id = ack.job_id as string;
      expect((await v1Client.getJob(v1Site, id)).id).toBe(id);
      await v1Client.cancelJob(v1Site, id);
      const paths = v1
        .requests()
        .filter((logged) => logged.method !== "POST")
        .map(
          (logged) =>
            `${logged.method} ${logged.path.replace(v1Site, "S").replace(id, "J")} ${logged.status}`,
        );
      // The first spelling is tried once; the one that was routed is used from then on.
      expect(paths).toEqual(["GET /sites/S/jobs/J 404", "GET /site/S/job/J 200", "DELETE /site/S/job/J 204"]);
    } finally {
      await v1Client.close();
      await v1.close();
    }
  });
});

describe("client (sdx profile) against our service: over the spec profile's data", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ tickMs: 600_000, rateLimit: { count: 10_000, windowMs: 1000 } });
  });
  afterAll(async () => svc?.close());

  it("a job submitted through the sites API is the same job in the spec's list; UTF-8 survives the header", async () => {
    const sdx = serviceClient(svc);
    const spec = serviceClient(svc, { api: "spec" });
    try {
      const { ack } = await sdx.submitJob(ROUTER_A2, job({ description: "Zürich uplink ✓" }));
      const [inSpec] = (await spec.listJobs(ROUTER_A2)).filter((item) => item.id === ack.request_id);
      expect(inSpec).toMatchObject({ description: "Zürich uplink ✓", status: "pending" });
      expect(inSpec?.seq_id).toBeGreaterThan(0);
    } finally {
      await Promise.all([sdx.close(), spec.close()]);
    }
  });
});

describe("the api option and the retry rule of a key that is honoured", () => {
  it("refuses an unknown profile at construction, naming the option and both values", () => {
    expect(
      () =>
        new RouterJobsClient({
          baseUrl: "https://127.0.0.1:1",
          token: TOKEN_A,
          api: "rest" as never,
          budgetDir: tempBudgetDir(),
        }),
    ).toThrow(/api must be "spec" or "sdx" \(got "rest"\)/);
  });

  it("refuses a job without a description on the spec profile before sending, where it is required", async () => {
    const client = new RouterJobsClient({
      baseUrl: "https://127.0.0.1:1",
      token: TOKEN_A,
      budgetDir: tempBudgetDir(),
    });
    try {
      const { description: _left, ...bare } = job();
      const refused = await client.submitJob(ROUTER_A, bare).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).details.map((detail) => detail.field)).toEqual(["description"]);
    } finally {
      await client.close();
    }
  });

  it("resends a submission that may have arrived only when the API honours its key", () => {
    const sentNoAnswer = new NetworkError("connection reset", { requestSent: true });
    const serverError = new ApiError({ statusCode: 502, message: "bad gateway" });
    const base = { operation: "submit" as const, attempt: 1, maxAttempts: 5 };
    expect(shouldRetry({ ...base, error: sentNoAnswer })).toBe(false);
    expect(shouldRetry({ ...base, error: serverError })).toBe(false);
    expect(shouldRetry({ ...base, error: sentNoAnswer, keyHonoured: true })).toBe(true);
    expect(shouldRetry({ ...base, error: serverError, keyHonoured: true })).toBe(true);
    // A refusal of the request itself stays final, honoured key or not.
    const invalid = new ApiError({ statusCode: 422, message: "invalid" });
    expect(shouldRetry({ ...base, error: invalid, keyHonoured: true })).toBe(false);
  });
});
