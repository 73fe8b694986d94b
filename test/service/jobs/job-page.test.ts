import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  decodeCursor,
  encodeCursor,
  InvalidCursorError,
  jobPage,
} from "../../../src/service/jobs/job-page.js";
import {
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  TEAM_A,
  type TestService,
  TOKEN_B,
} from "../harness.js";

const JOBS = 230;

/** `count` jobs on a router, straight into the table: seq 1..count, every seventh failed, "deploy N" each. */
async function fillJobs(svc: TestService, routerId: string, count: number): Promise<void> {
  await svc.service.app.db.query(
    `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
       description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at)
     SELECT gen_random_uuid(), $1, $2, n, 't' || n, gen_random_uuid(), gen_random_uuid(), 'h',
       CASE WHEN n % 10 = 0 THEN 'Deploy VLAN ' || n ELSE 'deploy ' || n END, '/log info x', false, false, true,
       CASE WHEN n % 7 = 0 THEN 'failed' ELSE 'completed' END, 'done', now()
     FROM generate_series(1, $3::int) AS n`,
    [routerId, TEAM_A, count],
  );
  await svc.service.app.db.query("UPDATE routers SET next_seq = $2 WHERE id = $1", [routerId, count + 1]);
}

describe("job pages: keyset paging of a router's jobs", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
    await fillJobs(svc, ROUTER_A2, JOBS);
  });
  afterAll(async () => svc?.close());

  it("walks every job exactly once, newest first, page by page", async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await jobPage(svc.service.app.db, {
        teamId: TEAM_A,
        routerId: ROUTER_A2,
        limit: 50,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.jobs.map((job) => job.seq_id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual(Array.from({ length: JOBS }, (_, index) => JOBS - index));
  });

  it("ends on a page that is exactly full: no cursor to an empty page after it", async () => {
    const pageOf = (cursor?: string) =>
      jobPage(svc.service.app.db, {
        teamId: TEAM_A,
        routerId: ROUTER_A2,
        limit: JOBS / 5,
        ...(cursor ? { cursor } : {}),
      });
    let page = await pageOf();
    for (let index = 1; index < 5; index++) {
      expect(page.nextCursor).toBeDefined();
      page = await pageOf(page.nextCursor);
    }
    // The last page holds the oldest fifth, newest first: seq_ids JOBS / 5 down to 1.
    expect(page.jobs.map((job) => job.seq_id)).toEqual(
      Array.from({ length: JOBS / 5 }, (_, i) => JOBS / 5 - i),
    );
    expect(page.nextCursor).toBeUndefined();
  });

  it("filters by status and by description text (case-insensitive, literal)", async () => {
    const db = svc.service.app.db;
    const failed = await jobPage(db, {
      teamId: TEAM_A,
      routerId: ROUTER_A2,
      limit: 500,
      statuses: ["failed"],
    });
    expect(failed.jobs.map((job) => job.seq_id)).toEqual(
      Array.from({ length: JOBS }, (_, index) => JOBS - index).filter((seq) => seq % 7 === 0),
    );
    const vlan = await jobPage(db, { teamId: TEAM_A, routerId: ROUTER_A2, limit: 5, text: "vlan" });
    expect(vlan.jobs.map((job) => job.seq_id)).toEqual([230, 220, 210, 200, 190]);
    expect(vlan.nextCursor).toBeDefined();
    const wildcard = await jobPage(db, { teamId: TEAM_A, routerId: ROUTER_A2, limit: 5, text: "%" });
    expect(wildcard.jobs).toHaveLength(0);
    // LIKE's other special characters are literal too: `_` is no single-character wildcard, `\` no escape.
    for (const special of ["_", "\\", "deploy_1", "deplo\\y"]) {
      expect(
        (await jobPage(db, { teamId: TEAM_A, routerId: ROUTER_A2, limit: 5, text: special })).jobs,
      ).toEqual([]);
    }
    expect(
      (await jobPage(db, { teamId: TEAM_A, routerId: ROUTER_A2, limit: 1, text: "LOY 2" })).jobs,
    ).toHaveLength(1);
  });

  it("has a trigram index for the text filter (what keeps apply's lookups from reading every job)", async () => {
    const { rows } = await svc.service.app.db.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE indexname = 'jobs_description_trgm'",
    );
    expect(rows[0]?.indexdef).toMatch(/USING gin \(lower\(description\) gin_trgm_ops\)/);
  });

  it("has an index of the markers' resource tags, and it is what a marker lookup reads", async () => {
    const db = svc.service.app.db;
    const { rows } = await db.query<{ indexdef: string }>(
      "SELECT indexdef FROM pg_indexes WHERE indexname = 'jobs_marker_tags'",
    );
    expect(rows[0]?.indexdef).toMatch(/USING gin \(rj_marker_tags\(description\)\)/);
    const tags = await db.query<{ tags: string[] }>("SELECT rj_marker_tags($1) AS tags", [
      "Set DNS [RJ:AbCd-efgh-ijkl-2] and [rj:x[rj:k2m7-] [rj:-] [rj:é-] [rj:zz9-",
    ]);
    expect(tags.rows[0]?.tags).toEqual(["abcd", "k2m7", "zz9"]);
    // One `[rj:` (apply's own descriptions) is read without a query; the answers are the same.
    for (const [description, expected] of [
      ["Set DNS [RJ:AbCd-efgh-ijkl-2]", ["abcd"]],
      ["[rj:-]", []],
      ["x [rj:é-] y", []],
      ["no marker", []],
    ] as const) {
      const one = await db.query<{ tags: string[] }>("SELECT rj_marker_tags($1) AS tags", [description]);
      expect(one.rows[0]?.tags).toEqual(expected);
    }
  });

  it("answers a text filter holding a marker's start as the text alone would (property)", async () => {
    // Descriptions and texts made of markers' parts, so that markers, near-markers and markers inside other
    // text are common; the reference is a case-insensitive `includes` (ASCII only, where JavaScript and
    // PostgreSQL lowercase alike). The marker index narrows the rows; it must never drop one the text matches.
    const db = svc.service.app.db;
    const part = fc.constantFrom(
      "[rj:",
      "[RJ:",
      "abcd",
      "K2m7",
      "z",
      "-",
      "]",
      " ",
      "[",
      ":",
      "rj",
      "%",
      "_",
    );
    const text = fc.array(part, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(""));
    // Descriptions are made of the same parts and of the filter itself, so that many hold it.
    const descriptionsAndFilter = text.chain((filter) =>
      fc.tuple(
        fc.array(
          fc
            .array(fc.oneof(part, fc.constant(filter)), { minLength: 1, maxLength: 6 })
            .map((parts) => parts.join("")),
          { minLength: 1, maxLength: 30 },
        ),
        fc.constant(filter),
      ),
    );
    await fc.assert(
      fc.asyncProperty(descriptionsAndFilter, async ([descriptions, filter]) => {
        await db.query("DELETE FROM jobs WHERE router_id = $1", [ROUTER_B]);
        await db.query(
          `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
             description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at)
           SELECT gen_random_uuid(), $1, team_id, n, 't' || n, gen_random_uuid(), gen_random_uuid(), 'h',
             ($2::text[])[n], '/log info x', false, false, true, 'completed', 'done', now()
           FROM routers, generate_series(1, cardinality($2::text[])) AS n WHERE routers.id = $1`,
          [ROUTER_B, descriptions],
        );
        const page = await jobPage(db, { teamId: null, routerId: ROUTER_B, limit: 100, text: filter });
        const expected = descriptions
          .map((description, index) => ({ description, seq: index + 1 }))
          .filter(({ description }) => description.toLowerCase().includes(filter.toLowerCase()))
          .map(({ seq }) => seq)
          .reverse();
        expect(page.jobs.map((job) => job.seq_id)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
    await db.query("DELETE FROM jobs WHERE router_id = $1", [ROUTER_B]);
  });

  it("gives another team's router no rows, and the admin view (team null) all of them", async () => {
    const db = svc.service.app.db;
    const other = await jobPage(db, {
      teamId: "b0000000-0000-4000-8000-000000000002",
      routerId: ROUTER_A2,
      limit: 10,
    });
    expect(other.jobs).toHaveLength(0);
    const admin = await jobPage(db, { teamId: null, routerId: ROUTER_A2, limit: 10 });
    expect(admin.jobs).toHaveLength(10);
  });

  it("round-trips cursors and refuses any string it did not hand out", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_147_483_647 }),
        (seq) => decodeCursor(encodeCursor(seq)) === seq,
      ),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        const valid = (() => {
          try {
            decodeCursor(text);
            return true;
          } catch (error) {
            return !(error instanceof InvalidCursorError);
          }
        })();
        return !valid || encodeCursor(decodeCursor(text)) === text;
      }),
    );
    for (const bad of [
      "",
      "abc",
      encodeCursor(0),
      Buffer.from("rj1.-1").toString("base64url"),
      "x".repeat(80),
    ]) {
      expect(() => decodeCursor(bad)).toThrow(InvalidCursorError);
    }
  });

  describe("GET /api/routers/:id/jobs (extension: limit, cursor, status)", () => {
    it("answers exactly as before without query parameters", async () => {
      const answer = await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs`);
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body)).toEqual(["status", "data"]);
      expect(answer.body.data).toHaveLength(JOBS);
      expect(answer.body.data[0].seq_id).toBe(JOBS);
    });

    it("pages with limit and the opaque next_cursor, null on the last page", async () => {
      const first = await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs?limit=100`);
      expect(first.body.data).toHaveLength(100);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await svc.call(
        "GET",
        `/api/routers/${ROUTER_A2}/jobs?limit=100&cursor=${first.body.next_cursor}`,
      );
      expect(second.body.data[0].seq_id).toBe(JOBS - 100);
      const third = await svc.call(
        "GET",
        `/api/routers/${ROUTER_A2}/jobs?limit=100&cursor=${second.body.next_cursor}`,
      );
      expect(third.body.data).toHaveLength(JOBS - 200);
      expect(third.body.next_cursor).toBeNull();
      const failed = await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs?status=failed,deleted`);
      expect(failed.body.data.every((job: { status: string }) => job.status === "failed")).toBe(true);
      expect(failed.body.next_cursor).toBeUndefined();
    });

    it("refuses a bad limit, cursor or status with a 422 naming the field", async () => {
      for (const [query, field] of [
        ["limit=0", "limit"],
        ["limit=501", "limit"],
        ["limit=ten", "limit"],
        ["limit=10&cursor=bogus", "cursor"],
        ["status=done", "status"],
      ] as const) {
        const answer = await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs?${query}`);
        expect(answer.status, query).toBe(422);
        expect(answer.body.error.code).toBe("invalid_request");
        expect(answer.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
      }
    });

    it("keeps another team's router a 404 with paging too", async () => {
      const answer = await svc.call("GET", `/api/routers/${ROUTER_A}/jobs?limit=10`, { token: TOKEN_B });
      expect(answer.status).toBe(404);
      expect((await svc.call("GET", `/api/routers/${ROUTER_B}/jobs?limit=10`)).status).toBe(404);
    });
  });
});
