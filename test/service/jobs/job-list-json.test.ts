/**
 * The whole job list is written as JSON by the database (`jobListJson`, `JOB_RECORD_SELECT`): these tests hold
 * it to what `toJobRecord` and JSON.stringify make of the same rows, key for key and in the same order, for
 * any description, error and time, and to `jobPage`'s filters.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_STATUSES, type KnownJobStatus } from "../../../src/contract/job.js";
import type { Queryable } from "../../../src/service/database/database.js";
import { emittedJobListSchema } from "../../../src/service/http/routes/schemas.js";
import { type JobListQuery, jobListJson, jobPage, jobPageJson } from "../../../src/service/jobs/job-page.js";
import { toJobRecord } from "../../../src/service/jobs/rows.js";
import { listJobs } from "../../../src/service/jobs/submit.js";
import { ROUTER_A2, startTestService, TEAM_A, type TestService } from "../harness.js";

/** Text as people and tools write it: JSON's escapes, LIKE's wildcards, non-ASCII, astral characters. */
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('"', "\\", "\n", "\r", "\t", "\u0001", "\u001f", "\u007f", "\u2028", "%", "_", "/"),
    fc.constantFrom("é", "ß", "Ä", "日", "😀", "ǅ"),
    // Any character PostgreSQL's text holds: all but NUL.
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }).filter((char) => !char.includes("\u0000")),
  ),
  maxLength: 40,
});
const time = fc.option(
  fc.date({
    min: new Date("1000-01-01T00:00:00.000Z"),
    max: new Date("9999-12-31T23:59:59.999Z"),
    noInvalidDate: true,
  }),
);
const job = fc.record({
  description: text,
  error: fc.option(text),
  status: fc.constantFrom(...JOB_STATUSES),
  makeBackup: fc.boolean(),
  express: fc.boolean(),
  acknowledge: fc.boolean(),
  started: time,
  completed: time,
  failed: time,
  deleted: time,
});
type Job = typeof job extends fc.Arbitrary<infer T> ? T : never;

describe("the job list written by the database", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
  });
  afterAll(async () => svc?.close());

  async function replaceJobs(jobs: readonly Job[]): Promise<void> {
    const db = svc.service.app.db;
    await db.query("DELETE FROM jobs WHERE router_id = $1", [ROUTER_A2]);
    for (const [index, item] of jobs.entries()) {
      await db.query(
        `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
           description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at,
           started_at, completed_at, failed_at, deleted_at, error)
         VALUES (gen_random_uuid(), $1, $2, $3::int, md5($3::int::text), gen_random_uuid(), gen_random_uuid(), 'h', $4,
           '/log info x', $5, $6, $7, $8, 'done', now(), $9, $10, $11, $12, $13)`,
        [
          ROUTER_A2,
          TEAM_A,
          index + 1,
          item.description,
          item.makeBackup,
          item.express,
          item.acknowledge,
          item.status,
          item.started,
          item.completed,
          item.failed,
          item.deleted,
          item.error,
        ],
      );
    }
  }

  it("is toJobRecord's JSON of every job, newest first, for any text and time", async () => {
    const db = svc.service.app.db;
    await fc.assert(
      fc.asyncProperty(fc.array(job, { maxLength: 12 }), async (jobs) => {
        await replaceJobs(jobs);
        const written = await listed(db, { teamId: TEAM_A, routerId: ROUTER_A2 });
        const built = JSON.stringify((await listJobs(db, TEAM_A, ROUTER_A2)).map(toJobRecord));
        // Parsed and written again: the same keys in the same order with the same values (the database's
        // escapes may differ from JSON.stringify's, the text they stand for may not).
        expect(JSON.stringify(JSON.parse(written))).toBe(built);
        expect(JSON.parse(written)).toHaveLength(jobs.length);
      }),
      { numRuns: 40 },
    );
  });

  it("filters by status and description text as a page does (case-insensitive, taken literally)", async () => {
    const db = svc.service.app.db;
    const query = fc.record({
      statuses: fc.option(fc.subarray([...JOB_STATUSES] as KnownJobStatus[], { minLength: 1 }), {
        nil: undefined,
      }),
      text: fc.option(
        text.filter((value) => value.length > 0),
        { nil: undefined },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(job, { maxLength: 12 }), query, async (jobs, filters) => {
        await replaceJobs(jobs);
        const filter = {
          teamId: TEAM_A,
          routerId: ROUTER_A2,
          ...(filters.statuses ? { statuses: filters.statuses } : {}),
          ...(filters.text === undefined ? {} : { text: filters.text }),
        };
        const written = JSON.parse(await listed(db, filter)) as { seq_id: number }[];
        const paged = await jobPage(db, { ...filter, limit: 500 });
        expect(written.map((item) => item.seq_id)).toEqual(paged.jobs.map((row) => row.seq_id));
      }),
      { numRuns: 40 },
    );
    // A wildcard is a character like any other, and case does not matter
    await replaceJobs([
      { ...emptyJob, description: "100% Done" },
      { ...emptyJob, description: "1000 done" },
    ]);
    const percent = JSON.parse(await listed(db, { teamId: TEAM_A, routerId: ROUTER_A2, text: "0% d" }));
    expect(percent.map((item: { description: string }) => item.description)).toEqual(["100% Done"]);
  });

  it("pages as jobPage does: the same items as toJobRecord's JSON, and the same cursors to the end", async () => {
    const db = svc.service.app.db;
    await fc.assert(
      fc.asyncProperty(
        fc.array(job, { maxLength: 15 }),
        fc.integer({ min: 1, max: 6 }),
        fc.option(fc.constantFrom<KnownJobStatus[]>(["failed"], ["completed", "pending"]), {
          nil: undefined,
        }),
        async (jobs, limit, statuses) => {
          await replaceJobs(jobs);
          const query = { teamId: TEAM_A, routerId: ROUTER_A2, limit, ...(statuses ? { statuses } : {}) };
          let cursor: string | undefined;
          do {
            const page = { ...query, ...(cursor === undefined ? {} : { cursor }) };
            const written = await jobPageJson(db, page);
            const built = await jobPage(db, page);
            expect(JSON.stringify(JSON.parse(written.json))).toBe(
              JSON.stringify(built.jobs.map(toJobRecord)),
            );
            expect(written.nextCursor).toBe(built.nextCursor);
            cursor = written.nextCursor;
          } while (cursor !== undefined);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("comes in chunks that make every job once, newest first, in the answer of a long router", async () => {
    const db = svc.service.app.db;
    await db.query("DELETE FROM jobs WHERE router_id = $1", [ROUTER_A2]);
    await db.query(
      `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
         description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at)
       SELECT gen_random_uuid(), $1, $2, n, 't' || n, gen_random_uuid(), gen_random_uuid(), 'h', 'deploy ' || n,
         '/log info x', false, false, true, CASE WHEN n % 3 = 0 THEN 'failed' ELSE 'completed' END, 'done', now()
       FROM generate_series(1, 1234) AS n`,
      [ROUTER_A2, TEAM_A],
    );
    const chunks: string[] = [];
    for await (const chunk of jobListJson(db, { teamId: TEAM_A, routerId: ROUTER_A2 })) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    const answer = await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs`);
    expect(answer.status).toBe(200);
    const seqs = emittedJobListSchema.parse(answer.body).data.map((item) => item.seq_id);
    expect(seqs).toEqual(Array.from({ length: 1234 }, (_, index) => 1234 - index));
    const failed = await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs?status=failed`);
    expect(failed.body.data.map((item: { seq_id: number }) => item.seq_id)).toEqual(
      seqs.filter((seq) => seq % 3 === 0),
    );
  });

  it("is another team's router: nothing", async () => {
    await replaceJobs([emptyJob]);
    const other = "b0000000-0000-4000-8000-000000000002";
    expect(await listed(svc.service.app.db, { teamId: other, routerId: ROUTER_A2 })).toBe("[]");
  });

  it("is what GET /api/routers/:id/jobs answers, as the spec's list: the schema's envelope, JSON content type", async () => {
    await replaceJobs([
      { ...emptyJob, description: 'quote " and \\ and\nnewline', status: "failed", error: "timed out" },
      {
        ...emptyJob,
        description: "second",
        completed: new Date("2026-11-27T10:11:12.345Z"),
        status: "completed",
      },
    ]);
    const answer = await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs`);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    const parsed = emittedJobListSchema.parse(answer.body);
    expect(parsed.data.map((item) => [item.seq_id, item.status, item.completed_at])).toEqual([
      [2, "completed", "2026-11-27T10:11:12.345+00:00"],
      [1, "failed", null],
    ]);
    expect(parsed.data[1]?.description).toBe('quote " and \\ and\nnewline');
    const filtered = await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs?status=failed&text=QUOTE`);
    expect(filtered.body.data.map((item: { seq_id: number }) => item.seq_id)).toEqual([1]);
    await replaceJobs([]);
    expect((await svc.call("GET", `/api/routers/${ROUTER_A2}/jobs`)).body).toEqual({
      status: "success",
      data: [],
    });
  });
});

/** The list's chunks as the one JSON array they make. */
async function listed(db: Queryable, query: JobListQuery): Promise<string> {
  const chunks: string[] = [];
  for await (const chunk of jobListJson(db, query)) chunks.push(chunk);
  return `[${chunks.join(",")}]`;
}

const emptyJob: Job = {
  description: "",
  error: null,
  status: "pending",
  makeBackup: false,
  express: false,
  acknowledge: true,
  started: null,
  completed: null,
  failed: null,
  deleted: null,
};
