import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitWords } from "../../src/contract/routers/sync-view.js";
import { parameterWordProblem, siteJobSchema } from "../../src/contract/sites.js";
import { rawValue, routerOsKey } from "../../src/service/http/routes/sites/raw-records.js";
import { toSiteJob } from "../../src/service/http/routes/sites/site-job.js";
import { listJobs } from "../../src/service/jobs/submit.js";
import {
  ADMIN_TOKEN,
  type Answer,
  eventually,
  type Loose,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  TEAM_B,
  type TestService,
  TOKEN_A,
  TOKEN_B,
} from "./harness.js";

const SITE_JOB_FIELDS = Object.keys(siteJobSchema.shape).sort();
const UNKNOWN_SITE = "f0000000-0000-4000-8000-00000000000f";

/** POST /sites/{siteId}/jobs with valid metadata; `headers` overrides it (undefined leaves a header out). */
function submitToSite(
  svc: TestService,
  siteId: string,
  script: string,
  headers: Record<string, string | undefined> = {},
  options: { token?: string; path?: string } = {},
): Promise<Answer> {
  const merged: Record<string, string | undefined> = {
    "content-type": "text/plain; charset=utf-8",
    "x-idempotency-key": randomUUID(),
    "x-description": "sites api job",
    ...headers,
  };
  const sent = Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return svc.call("POST", options.path ?? `/sites/${siteId}/jobs`, {
    raw: script,
    headers: sent,
    ...(options.token ? { token: options.token } : {}),
  });
}

const siteJobs = async (svc: TestService, siteId: string, token = TOKEN_A): Promise<Loose[]> => {
  const answer = await svc.call("GET", `/sites/${siteId}/jobs`, { token });
  expect(answer.status).toBe(200);
  return answer.body;
};

const command = (svc: TestService, siteId: string, body: unknown, token = TOKEN_A) =>
  svc.call("POST", `/sites/${siteId}/commands/synchronous`, { body, token });

/** The error envelope without its request id, which differs per request. */
const withoutRequestId = (body: Loose) => ({ ...body, error: { ...body.error, request_id: undefined } });

describe("sites API (sdx profile) over the service's data", () => {
  let svc: TestService;
  beforeAll(async () => {
    // A long tick: a job runs only when it asks for express execution, so pending stays pending.
    svc = await startTestService({ tickMs: 60_000, rateLimit: { count: 10_000, windowMs: 1000 } });
  });
  afterAll(async () => svc?.close());

  describe("POST /sites/{siteId}/jobs", () => {
    it("answers 202 with a bare job object: the documented fields, the headers' defaults applied", async () => {
      const key = randomUUID();
      const answer = await submitToSite(svc, ROUTER_A, ":put hello", { "x-idempotency-key": key });
      expect(answer.status).toBe(202);
      expect(Object.keys(answer.body).sort()).toEqual(SITE_JOB_FIELDS);
      expect(answer.body).toMatchObject({
        site_id: ROUTER_A,
        idempotency_key: key,
        description: "sites api job",
        script: ":put hello",
        express_execute: false,
        needs_acknowledgement: true,
        should_backup: false,
        associated_backup: null,
        started_at: null,
        completed_at: null,
        failed_at: null,
        log_url: null,
      });
      expect(answer.body.token).toEqual(expect.any(String));
      expect(answer.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*\+00:00$/);
      expect(answer.body).not.toHaveProperty("status");
      expect(answer.body).not.toHaveProperty("seq_id");
    });

    it("reads X-Needs-Ack, X-Backup and X-Express-Execute (true/false, 1/0, any case)", async () => {
      const answer = await submitToSite(svc, ROUTER_A2, ":put flags", {
        "x-needs-ack": "FALSE",
        "x-backup": "1",
        "x-express-execute": "false",
      });
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({
        needs_acknowledgement: false,
        should_backup: true,
        express_execute: false,
      });
      // Without acknowledgement the job is complete at submission (CONTRACT.md, Jobs).
      expect(answer.body.completed_at).toBe(answer.body.created_at);
    });

    it("reads a UTF-8 X-Description", async () => {
      const latin1OfUtf8 = Buffer.from("Zürich uplink", "utf8").toString("latin1");
      const answer = await submitToSite(svc, ROUTER_A, ":put 1", { "x-description": latin1OfUtf8 });
      expect(answer.status).toBe(202);
      expect(answer.body.description).toBe("Zürich uplink");
    });

    it("a replayed X-Idempotency-Key returns the first job and creates none", async () => {
      const key = randomUUID();
      const first = await submitToSite(svc, ROUTER_A, ":put once", { "x-idempotency-key": key });
      const again = await submitToSite(svc, ROUTER_A, ":put once", {
        "x-idempotency-key": key.toUpperCase(),
      });
      expect(again.status).toBe(202);
      expect(again.headers["idempotent-replayed"]).toBe("true");
      expect(again.body).toEqual(first.body);
      const listed = (await siteJobs(svc, ROUTER_A)).filter((job) => job.idempotency_key === key);
      expect(listed).toHaveLength(1);
      // The same key for a different job is refused, as on the spec route.
      const other = await submitToSite(svc, ROUTER_A, ":put other", { "x-idempotency-key": key });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe("idempotency_conflict");
      expect(other.body.error.message).toContain("X-Idempotency-Key");
    });

    it("shares one idempotency mechanism with the spec route", async () => {
      const key = randomUUID();
      const spec = await svc.submit(
        ROUTER_A2,
        { description: "both profiles", script: ":put both" },
        TOKEN_A,
        { "idempotency-key": key },
      );
      expect(spec.status).toBe(202);
      const sites = await submitToSite(svc, ROUTER_A2, ":put both", {
        "x-idempotency-key": key,
        "x-description": "both profiles",
      });
      expect(sites.status).toBe(202);
      expect(sites.headers["idempotent-replayed"]).toBe("true");
      const specJob = (await svc.jobs(ROUTER_A2)).find((job: Loose) => job.idempotency_key === key);
      expect(sites.body.id).toBe(specJob.id);
    });

    it("the alias /site/{siteId}/job submits and lists the same jobs", async () => {
      const key = randomUUID();
      const answer = await submitToSite(
        svc,
        ROUTER_A,
        ":put alias",
        { "x-idempotency-key": key },
        { path: `/site/${ROUTER_A}/job` },
      );
      expect(answer.status).toBe(202);
      const viaAlias = await svc.call("GET", `/site/${ROUTER_A}/job`);
      expect(viaAlias.status).toBe(200);
      expect(viaAlias.body).toEqual(await siteJobs(svc, ROUTER_A));
      expect(viaAlias.body.some((job: Loose) => job.id === answer.body.id)).toBe(true);
    });
  });

  describe("POST /sites/{siteId}/jobs refuses bad input with a 4xx naming the header or field", () => {
    const cases: [string, Record<string, string | undefined>, string, string, RegExp][] = [
      [
        "missing X-Idempotency-Key",
        { "x-idempotency-key": undefined },
        ":put 1",
        "x-idempotency-key",
        /required/,
      ],
      ["X-Idempotency-Key not a UUID", { "x-idempotency-key": "abc" }, ":put 1", "x-idempotency-key", /UUID/],
      [
        "X-Description of 2 characters",
        { "x-description": "ab" },
        ":put 1",
        "x-description",
        /3 to 100 characters where sent \(got 2\); it may be left out/,
      ],
      [
        "X-Description of 101 characters",
        { "x-description": "d".repeat(101) },
        ":put 1",
        "x-description",
        /3 to 100 characters where sent \(got 101\); it may be left out/,
      ],
      ["X-Description not UTF-8", { "x-description": "caf\u00e9" }, ":put 1", "x-description", /UTF-8/],
      [
        "X-Backup not a boolean",
        { "x-backup": "yes" },
        ":put 1",
        "x-backup",
        /X-Backup must be true or false/,
      ],
      ["X-Needs-Ack not a boolean", { "x-needs-ack": "maybe" }, ":put 1", "x-needs-ack", /X-Needs-Ack/],
      [
        "X-Express-Execute not a boolean",
        { "x-express-execute": "2" },
        ":put 1",
        "x-express-execute",
        /X-Express-Execute/,
      ],
      [
        "a script over 10000 characters, the sites API's limit",
        {},
        "x".repeat(10_001),
        "body",
        /script must be at most 10000 characters on the sdx API \(got 10001\)/,
      ],
      [
        "a script under 3 characters",
        {},
        ":p",
        "body",
        /script must be at least 3 characters on the sdx API \(got 2\)/,
      ],
      ["an empty script", {}, "", "body", /script must not be empty/],
    ];
    for (const [name, headers, script, field, message] of cases) {
      it(`422 for ${name}`, async () => {
        const before = (await siteJobs(svc, ROUTER_A)).length;
        const answer = await submitToSite(svc, ROUTER_A, script, headers);
        expect(answer.status).toBe(422);
        expect(answer.body.error.code).toBe("invalid_request");
        const detail = answer.body.error.details.find((item: Loose) => item.field === field);
        expect(detail?.message).toMatch(message);
        expect((await siteJobs(svc, ROUTER_A)).length).toBe(before);
      });
    }

    it("accepts a script of 3 and of 10000 characters, the sites API's limits (the spec route's is 2000)", async () => {
      for (const script of [":pu", `:log info "${"x".repeat(10_000 - 12)}"`]) {
        const answer = await submitToSite(svc, ROUTER_A, script);
        expect(answer.status).toBe(202);
        expect(answer.body.script).toBe(script);
      }
    });

    it("accepts a job without X-Description (optional in the newer edition) and lists it with none", async () => {
      const answer = await submitToSite(svc, ROUTER_A, ":put 1", { "x-description": undefined });
      expect(answer.status).toBe(202);
      expect(answer.body.description).toBe("");
      const listed = (await siteJobs(svc, ROUTER_A)).find((item: Loose) => item.id === answer.body.id);
      expect(listed?.description).toBe("");
      // The spec's list shows the same job with the same empty description.
      const spec = await svc.call("GET", `/api/routers/${ROUTER_A}/jobs`);
      expect(spec.body.data.find((item: Loose) => item.id === answer.body.id)?.description).toBe("");
    });

    it("accepts X-Description at 3 and at 100 characters", async () => {
      for (const description of ["abc", "d".repeat(100)]) {
        const answer = await submitToSite(svc, ROUTER_A, ":put 1", { "x-description": description });
        expect(answer.status).toBe(202);
      }
    });

    it("415 for a body that is not text/plain, naming text/plain", async () => {
      const json = await submitToSite(svc, ROUTER_A, JSON.stringify({ script: ":put 1" }), {
        "content-type": "application/json",
      });
      expect(json.status).toBe(415);
      expect(json.body.error.code).toBe("unsupported_media_type");
      expect(json.body.error.message).toMatch(/Content-Type must be text\/plain \(got "application\/json"\)/);
      const latin1 = await submitToSite(svc, ROUTER_A, ":put 1", {
        "content-type": "text/plain; charset=iso-8859-1",
      });
      expect(latin1.status).toBe(415);
      expect(latin1.body.error.message).toMatch(/UTF-8/);
    });

    it("415 for a body without Content-Type, 422 for no body, 422 for a body that is not UTF-8", async () => {
      const agent = new Agent({ connect: { ca: svc.service.ca } });
      const send = async (headers: Record<string, string>, body?: Buffer) => {
        const response = await request(`${svc.url}/sites/${ROUTER_A}/jobs`, {
          method: "POST",
          dispatcher: agent,
          headers: {
            authorization: `Bearer ${TOKEN_A}`,
            "x-idempotency-key": randomUUID(),
            "x-description": "raw bytes",
            ...headers,
          },
          ...(body ? { body } : {}),
        });
        return { status: response.statusCode, body: (await response.body.json()) as Loose };
      };
      try {
        const untyped = await send({}, Buffer.from(":put 1"));
        expect(untyped.status).toBe(415);
        expect(untyped.body.error.message).toMatch(/text\/plain \(got none\)/);
        const empty = await send({});
        expect(empty.status).toBe(422);
        expect(empty.body.error.details[0].message).toMatch(/script as the request body.*text\/plain/);
        const notUtf8 = await send({ "content-type": "text/plain" }, Buffer.from([0x3a, 0x70, 0xff, 0xfe]));
        expect(notUtf8.status).toBe(422);
        expect(notUtf8.body.error.message).toMatch(/not valid UTF-8/);
      } finally {
        await agent.close();
      }
    });
  });

  describe("GET /sites/{siteId}/jobs", () => {
    it("a bare array, newest first, of every profile's jobs, without status or seq_id", async () => {
      const spec = await svc.submit(ROUTER_A2, {
        description: "from the spec route",
        script: ":put spec",
        make_backup: true,
      });
      expect(spec.status).toBe(202);
      const sites = await submitToSite(svc, ROUTER_A2, ":put sites");
      const list = await siteJobs(svc, ROUTER_A2);
      expect(Array.isArray(list)).toBe(true);
      for (const job of list) {
        expect(Object.keys(job).sort()).toEqual(SITE_JOB_FIELDS);
        expect(job.site_id).toBe(ROUTER_A2);
      }
      expect(list[0].id).toBe(sites.body.id);
      expect(list[1]).toMatchObject({ description: "from the spec route", should_backup: true });
      // Newest first, in the order of the spec list (seq_id descending).
      expect(list.map((job) => job.id)).toEqual((await svc.jobs(ROUTER_A2)).map((job: Loose) => job.id));
    });

    it("omits a soft-deleted job, which the spec list still shows as deleted", async () => {
      const pending = await submitToSite(svc, ROUTER_A2, ":put doomed");
      const deleted = await svc.call("DELETE", `/admin/jobs/${pending.body.id}`, { token: ADMIN_TOKEN });
      expect(deleted.status).toBe(200);
      expect((await siteJobs(svc, ROUTER_A2)).some((job) => job.id === pending.body.id)).toBe(false);
      const specJob = (await svc.jobs(ROUTER_A2)).find((job: Loose) => job.id === pending.body.id);
      expect(specJob.status).toBe("deleted");
    });

    it("a history of several chunks: every job once, newest first, as the documented item, none deleted", async () => {
      // A site of its own with 450 jobs (several chunks of the list), every ninth soft-deleted.
      const db = svc.service.app.db;
      const site = "b2000000-0000-4000-8000-000000000450";
      await db.query("INSERT INTO routers (id, team_id, name, next_seq) VALUES ($1, $2, 'edge-long', 451)", [
        site,
        TEAM_B,
      ]);
      await db.query(
        `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
           description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at,
           completed_at)
         SELECT gen_random_uuid(), $1, $2, n, 't' || n, gen_random_uuid(), gen_random_uuid(), 'h',
           'change ' || n, ':put ' || n, n % 2 = 0, false, true,
           CASE WHEN n % 9 = 0 THEN 'deleted' ELSE 'completed' END, 'done', now(), now()
         FROM generate_series(1, 450) AS n`,
        [site, TEAM_B],
      );
      const list = await siteJobs(svc, site, TOKEN_B);
      const expected = (await listJobs(db, TEAM_B, site))
        .filter((row) => row.status !== "deleted")
        .map((row) => JSON.parse(JSON.stringify(toSiteJob(row))));
      expect(list.length).toBe(400);
      expect(list).toEqual(expected);
      for (const job of list) expect(siteJobSchema.strict().parse(job)).toEqual(job);
    });

    it("405 with Allow for another method", async () => {
      const answer = await svc.call("DELETE", `/sites/${ROUTER_A}/jobs`);
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe("GET, POST, HEAD");
    });
  });

  describe("GET /backup/{siteId} and /backup/{siteId}/{filename}", () => {
    const runWithBackup = async (siteId: string, script: string) => {
      const submitted = await submitToSite(svc, siteId, script, {
        "x-express-execute": "true",
        "x-backup": "true",
      });
      expect(submitted.status).toBe(202);
      return eventually(async () => {
        const job = (await siteJobs(svc, siteId)).find((item) => item.id === submitted.body.id);
        return job?.completed_at ? job : undefined;
      });
    };

    it("lists the backups the site's jobs took, newest first, each named as the job's associated_backup", async () => {
      // GIVEN two jobs with a backup, one after the other, and one without
      const first = await runWithBackup(ROUTER_A2, '/system/identity/set name="before-backups"');
      const second = await runWithBackup(ROUTER_A2, '/system/identity/set name="after-first-backup"');
      // WHEN the site's backups are listed, by either spelling
      const listed = await svc.call("GET", `/backup/${ROUTER_A2}`);
      expect(listed.status).toBe(200);
      // THEN the newer comes first, each with the documented fields
      const names = listed.body.map((item: Loose) => item.filename);
      expect(names.slice(0, 2)).toEqual([second.associated_backup, first.associated_backup]);
      expect(Object.keys(listed.body[0]).sort()).toEqual(["created_at", "date", "filename", "size", "time"]);
      expect(listed.body[0]).toMatchObject({
        created_at: second.started_at,
        date: second.started_at.slice(0, 10),
        time: second.started_at.slice(11, 19),
        size: null,
      });
      const older = await svc.call("GET", `/sites/${ROUTER_A2}/backups`);
      expect(older.body).toEqual(listed.body);
      // AND one backup's content is the export taken before its job: the identity the first job set
      const one = await svc.call("GET", `/backup/${ROUTER_A2}/${second.associated_backup}`);
      expect(one.status).toBe(200);
      expect(Object.keys(one.body)).toEqual(["content"]);
      expect(one.body.content).toContain("before-backups");
      expect(one.body.content).not.toContain("after-first-backup");
      // AND X-View asks for the same text as text/plain
      const text = await svc.call("GET", `/backup/${ROUTER_A2}/${second.associated_backup}`, {
        headers: { "x-view": "true" },
      });
      expect(text.headers["content-type"]).toMatch(/^text\/plain/);
      expect(text.body).toBe(one.body.content);
    });

    it("404s an unknown backup and another team's site, as an unknown site", async () => {
      const unknown = await svc.call("GET", `/backup/${ROUTER_A}/nope.rsc`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/has no backup "nope.rsc"/);
      const foreign = await svc.call("GET", `/backup/${ROUTER_B}`);
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe("router_not_found");
      expect((await svc.call("GET", `/backup/${UNKNOWN_SITE}`)).status).toBe(404);
      expect((await svc.call("GET", `/backup/${ROUTER_A}`, { token: null })).status).toBe(401);
    });
  });

  it("a job submitted through the sites API runs to completion, with its timestamps in both lists", async () => {
    const submitted = await submitToSite(svc, ROUTER_A, '/system/identity/set name="via-sites"', {
      "x-express-execute": "true",
      "x-backup": "true",
    });
    expect(submitted.status).toBe(202);
    const done = await eventually(async () => {
      const job = (await siteJobs(svc, ROUTER_A)).find((item) => item.id === submitted.body.id);
      return job?.completed_at ? job : undefined;
    });
    expect(done.started_at).toEqual(expect.any(String));
    expect(done.failed_at).toBeNull();
    // The backup taken before the script, by the name the router keeps it under.
    expect(done.associated_backup).toMatch(/^routerjobs-job-\d+/);
    expect(Date.parse(done.started_at)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
    expect(Date.parse(done.completed_at)).toBeGreaterThanOrEqual(Date.parse(done.started_at));
    const spec = (await svc.jobs(ROUTER_A)).find((job: Loose) => job.id === submitted.body.id);
    expect(spec).toMatchObject({
      status: "completed",
      started_at: done.started_at,
      completed_at: done.completed_at,
      failed_at: null,
    });
    const identity = await command(svc, ROUTER_A, { command: "/system/identity/print" });
    expect(identity.body).toEqual([{ name: "via-sites" }]);
  });

  describe("POST /sites/{siteId}/commands/synchronous", () => {
    it("answers the raw RouterOS records: RouterOS keys, typed values", async () => {
      const answer = await command(svc, ROUTER_A, {
        command: "/interface/print",
        parameters: ["?name=ether1"],
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toHaveLength(1);
      expect(answer.body[0]).toMatchObject({
        ".id": "*1",
        name: "ether1",
        "default-name": "ether1",
        "mac-address": expect.stringMatching(/^([0-9A-F]{2}:){5}[0-9A-F]{2}$/),
        mtu: 1500,
        running: true,
        disabled: false,
      });
      expect(answer.body[0]).not.toHaveProperty("mac_address");
      expect(answer.body[0]).not.toHaveProperty("id");
    });

    it("passes every word through: queries and .proplist", async () => {
      const answer = await command(svc, ROUTER_A, {
        command: "/interface/print",
        parameters: ["=.proplist=name,mtu,mac-address", "?name=ether2"],
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual([{ name: "ether2", mtu: 1500, "mac-address": expect.any(String) }]);
    });

    it("keeps decimals and text as strings", async () => {
      const answer = await command(svc, ROUTER_A, { command: "/system/resource/print", parameters: [] });
      expect(answer.status).toBe(200);
      expect(answer.body[0]["factory-software"]).toBe("7.1");
      expect(answer.body[0]["cpu-count"]).toBe(1);
    });

    const refused: [string, unknown, string, RegExp][] = [
      [
        "a write command",
        { command: "/ip/address/add", parameters: ["=address=10.9.9.1/24", "=interface=ether1"] },
        "command",
        /must be read-only.*submit it as a job/,
      ],
      ["/execute", { command: "/execute", parameters: ["=script=:put 1"] }, "command", /must be read-only/],
      [
        "a word that is not an API word",
        { command: "/interface/print", parameters: ["name=ether1"] },
        "parameters.0",
        /API word/,
      ],
      [
        "a word that would split in two",
        { command: "/interface/print", parameters: ["?comment=a =b"] },
        "parameters.0",
        /split into two words/,
      ],
      ["=file=", { command: "/interface/print", parameters: ["=file=out"] }, "parameters.0", /writes a file/],
      [
        "parameters as a string",
        { command: "/interface/print", parameters: "?name=ether1" },
        "parameters",
        /array of API words/,
      ],
      ["an unknown field", { command: "/interface/print", params: [] }, "params", /unknown field params/],
    ];
    for (const [name, body, field, message] of refused) {
      it(`422 for ${name}`, async () => {
        const answer = await command(svc, ROUTER_A, body);
        expect(answer.status).toBe(422);
        expect(answer.body.error.code).toBe("invalid_request");
        const detail = answer.body.error.details.find((item: Loose) => item.field === field);
        expect(detail?.message).toMatch(message);
      });
    }

    it("400 command_failed with the router's own text", async () => {
      const answer = await command(svc, ROUTER_A, {
        command: "/interface/print",
        parameters: ["=.proplist=no-such-property"],
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("command_failed");
      expect(answer.body.error.message).toMatch(/proplist/);
    });
  });

  describe("auth and team scoping as on the spec routes", () => {
    it("another team's site answers exactly as an unknown one, on every route", async () => {
      const routes: [string, (siteId: string) => Promise<Answer>][] = [
        ["POST jobs", (siteId) => submitToSite(svc, siteId, ":put 1")],
        ["GET jobs", (siteId) => svc.call("GET", `/sites/${siteId}/jobs`)],
        ["GET job alias", (siteId) => svc.call("GET", `/site/${siteId}/job`)],
        ["synchronous", (siteId) => command(svc, siteId, { command: "/interface/print" })],
      ];
      for (const [name, call] of routes) {
        const other = await call(ROUTER_B);
        const unknown = await call(UNKNOWN_SITE);
        expect([name, other.status]).toEqual([name, 404]);
        expect(other.body.error.code).toBe("router_not_found");
        expect(withoutRequestId(other.body)).toEqual(
          withoutRequestId({
            ...unknown.body,
            error: {
              ...unknown.body.error,
              message: unknown.body.error.message.replace(UNKNOWN_SITE, ROUTER_B),
            },
          }),
        );
      }
      // Team B's own token sees its site; nothing of team A's leaked into it.
      expect(await siteJobs(svc, ROUTER_B, TOKEN_B)).toEqual([]);
    });

    it("422 naming siteId for a site id that is not a lowercase UUID", async () => {
      const answer = await svc.call("GET", `/sites/${ROUTER_A.toUpperCase()}/jobs`);
      expect(answer.status).toBe(422);
      expect(answer.body.error.details[0].field).toBe("siteId");
    });

    it("401 with WWW-Authenticate without a token, before anything else (even an unknown path)", async () => {
      for (const path of [`/sites/${ROUTER_A}/jobs`, `/site/${ROUTER_A}/job`, "/sites/nothing-here"]) {
        const answer = await svc.call("GET", path, { token: null });
        expect([path, answer.status]).toEqual([path, 401]);
        expect(answer.headers["www-authenticate"]).toMatch(/^Bearer/);
        expect(answer.body.error.code).toBe("unauthenticated");
      }
      const unknownPath = await svc.call("GET", "/sites/nothing-here");
      expect(unknownPath.status).toBe(404);
      expect(unknownPath.body.error.code).toBe("not_found");
    });
  });
});

describe("one rate limit per key across both profiles (5 per 3 s)", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ rateLimit: { count: 5, windowMs: 3000 }, tickMs: 60_000 });
  });
  afterAll(async () => svc?.close());

  it("requests to /api and /sites draw on the same budget; the 6th is 429 on either", async () => {
    const paths = [
      `/api/routers/${ROUTER_A}/jobs`,
      `/sites/${ROUTER_A}/jobs`,
      `/api/routers/${ROUTER_A}/jobs`,
      `/site/${ROUTER_A}/job`,
      `/sites/${ROUTER_A}/jobs`,
      `/sites/${ROUTER_A}/jobs`,
      `/api/routers/${ROUTER_A}/jobs`,
    ];
    const answers = [];
    for (const path of paths) answers.push(await svc.call("GET", path));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(answers.map((answer) => answer.headers["x-ratelimit-remaining"])).toEqual([
      "4",
      "3",
      "2",
      "1",
      "0",
      "0",
      "0",
    ]);
    const refused = answers[5] as Answer;
    expect(refused.body.error.code).toBe("rate_limited");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // Another team's key has its own budget on the sites API too.
    expect((await svc.call("GET", `/sites/${ROUTER_B}/jobs`, { token: TOKEN_B })).status).toBe(200);
  });
});

describe("sites API pure parts", () => {
  it("typed values give back the router's text exactly (String(value))", () => {
    fc.assert(
      fc.property(fc.constantFrom("mtu", "name", "running", "comment"), fc.string(), (key, text) => {
        expect(String(rawValue(key, text))).toBe(text);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (value) => {
        expect(rawValue("mtu", String(value))).toBe(value);
      }),
    );
  });

  it("types booleans and canonical integers only, and never free text", () => {
    expect(rawValue("running", "true")).toBe(true);
    expect(rawValue("disabled", "false")).toBe(false);
    expect(rawValue("use-peer-dns", "yes")).toBe("yes");
    expect(rawValue("mtu", "1500")).toBe(1500);
    for (const text of ["007", "-0", "7.16", "1d2h", "9007199254740993", "", " 1"]) {
      expect(rawValue("x", text)).toBe(text);
    }
    expect(rawValue("name", "1234")).toBe("1234");
    expect(rawValue("comment", "true")).toBe("true");
  });

  it("maps service keys back to RouterOS keys", () => {
    expect(routerOsKey("id")).toBe(".id");
    expect(routerOsKey("mac_address")).toBe("mac-address");
    expect(routerOsKey("DHCP")).toBe("DHCP");
  });

  it("words that pass the checks reach the router as the same words", () => {
    const word = fc
      .tuple(
        fc.constantFrom("=", "?", "."),
        fc.string({ unit: fc.constantFrom("a", "=", " ", "\n", ".", "?", "-") }),
      )
      .map(([first, rest]) => first + rest);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), (words) => {
        fc.pre(words.every((item) => parameterWordProblem(item) === undefined));
        expect(splitWords(words.join(" "))).toEqual(words);
      }),
      { numRuns: 2000 },
    );
  });
});
