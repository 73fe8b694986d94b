import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isTerminal,
  jobListItemSchema,
  jobListResponseSchema,
  jobRecordSchema,
  notificationSchema,
  readJobStatus,
  statusFromTimes,
} from "../../src/contract/job.js";

/** An item of the public service's newer job list (ALTOSTRAT.md, API B): no status, no seq_id. */
const sitesItem = {
  id: "5d0f7c1e-8a2b-4c3d-9e4f-0a1b2c3d4e5f",
  token: "aB3dE5fG",
  site_id: "6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f",
  idempotency_key: "9b2e6f0a-1c3d-4e5f-8a7b-6c5d4e3f2a1b",
  description: "add vlan 20",
  express_execute: false,
  needs_acknowledgement: true,
  should_backup: true,
  associated_backup: null,
  started_at: null,
  completed_at: null,
  failed_at: null,
  created_at: "2026-01-02T03:04:05.000000Z",
  log_url: null,
  script: "/system identity print",
};

const time = "2026-01-02T03:04:05.000000Z";
const maybeTime = fc.option(fc.constant(time), { nil: null });

describe("a job list item without status", () => {
  it("takes its state from the timestamps: deleted > failed > completed > started > pending", () => {
    fc.assert(
      fc.property(maybeTime, maybeTime, maybeTime, maybeTime, (started, completed, failed, deleted) => {
        const parsed = jobListItemSchema.parse({
          ...sitesItem,
          started_at: started,
          completed_at: completed,
          failed_at: failed,
          ...(deleted === null ? {} : { deleted_at: deleted }),
        });
        const expected =
          deleted !== null
            ? "deleted"
            : failed !== null
              ? "failed"
              : completed !== null
                ? "completed"
                : started !== null
                  ? "running"
                  : "pending";
        expect(parsed.status).toBe(expected);
        expect(statusFromTimes(parsed)).toBe(expected);
      }),
    );
  });

  it("reads should_backup as make_backup, keeps make_backup when both are sent, and keeps unknown fields", () => {
    const parsed = jobListItemSchema.parse(sitesItem);
    expect(parsed.make_backup).toBe(true);
    expect(parsed.seq_id).toBeUndefined();
    expect(parsed.site_id).toBe(sitesItem.site_id);
    expect(parsed.associated_backup).toBeNull();
    expect(jobListItemSchema.parse({ ...sitesItem, make_backup: false }).make_backup).toBe(false);
  });

  it("names make_backup when neither it nor should_backup is there", () => {
    const { should_backup: _none, ...bare } = sitesItem;
    const result = jobListItemSchema.safeParse(bare);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`)).toEqual([
      "make_backup: make_backup (or should_backup) must be a boolean true or false (got nothing)",
    ]);
  });

  it("lets an explicit status win over the timestamps, an unknown one included", () => {
    const started = { ...sitesItem, started_at: time };
    expect(jobListItemSchema.parse({ ...started, status: "pending" }).status).toBe("pending");
    const unknown = jobListItemSchema.parse({ ...sitesItem, completed_at: time, status: "archived" });
    expect(unknown.status).toBe("unknown");
    expect(isTerminal(unknown.status)).toBe(false);
  });
});

describe("statuses", () => {
  it("reads the device's words busy, done and fail as running, completed and failed", () => {
    expect(readJobStatus("busy")).toBe("running");
    expect(readJobStatus("done")).toBe("completed");
    expect(readJobStatus("fail")).toBe("failed");
    expect(jobListItemSchema.parse({ ...sitesItem, status: "done" }).status).toBe("completed");
  });

  it("reads every other word outside the spec's set as unknown, never terminal", () => {
    const known = new Set(["pending", "loaded", "running", "completed", "failed", "deleted"]);
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.constantFrom("toString", "__proto__", "constructor", "Done", "BUSY")),
        (word) => {
          fc.pre(!known.has(word) && !["busy", "done", "fail"].includes(word));
          expect(readJobStatus(word)).toBe("unknown");
          expect(isTerminal(readJobStatus(word))).toBe(false);
        },
      ),
    );
  });
});

describe("a job list answer", () => {
  it("is the envelope or a bare array, read alike", () => {
    const fromEnvelope = jobListResponseSchema.parse({ status: "success", data: [sitesItem] });
    const fromArray = jobListResponseSchema.parse([sitesItem]);
    expect(fromArray).toEqual(fromEnvelope);
    expect(fromArray.data[0]?.status).toBe("pending");
    expect(jobListResponseSchema.parse([])).toEqual({ status: "success", data: [] });
  });

  it("names the bad item's field, whatever the shape", () => {
    for (const body of [
      [{ ...sitesItem, description: 7 }],
      { status: "success", data: [{ ...sitesItem, description: 7 }] },
    ]) {
      const result = jobListResponseSchema.safeParse(body);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(["data", 0, "description"]);
    }
    expect(jobListResponseSchema.safeParse({ status: "error", data: [] }).success).toBe(false);
    expect(jobListResponseSchema.safeParse("[]").success).toBe(false);
  });

  it("never throws on arbitrary JSON (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = jobListResponseSchema.safeParse(value);
        if (result.success)
          for (const job of result.data.data) expect(typeof job.make_backup).toBe("boolean");
      }),
    );
  });
});

describe("a minimal notification", () => {
  it("needs only job_id and status, and checks the rest when present", () => {
    const parsed = notificationSchema.parse({ job_id: sitesItem.id, status: "done" });
    expect(parsed.status).toBe("completed");
    expect(parsed.idempotency_key).toBeUndefined();
    expect(parsed.completed_at).toBeNull();
    const issues = (value: unknown) =>
      notificationSchema.safeParse(value).error?.issues.map((issue) => issue.path.join(".")) ?? [];
    expect(issues({ status: "completed" })).toEqual(["job_id"]);
    expect(issues({ job_id: sitesItem.id })).toEqual(["status"]);
    expect(issues({ job_id: sitesItem.id, status: "completed", make_backup: "yes" })).toEqual([
      "make_backup",
    ]);
  });
});

describe("what our service emits", () => {
  it("stays strict: no should_backup for make_backup, no missing status or seq_id", () => {
    const record = {
      id: sitesItem.id,
      token: "t",
      idempotency_key: sitesItem.idempotency_key,
      description: "d",
      express_execute: false,
      needs_acknowledgement: true,
      make_backup: false,
      seq_id: 1,
      started_at: null,
      completed_at: null,
      failed_at: null,
      deleted_at: null,
      status: "pending",
      error: null,
      created_at: "2026-11-29T12:00:00.000+00:00",
    };
    expect(jobRecordSchema.safeParse(record).success).toBe(true);
    const { make_backup: _m, ...noBackup } = record;
    expect(jobRecordSchema.safeParse({ ...noBackup, should_backup: false }).success).toBe(false);
    const { status: _s, ...noStatus } = record;
    expect(jobRecordSchema.safeParse(noStatus).success).toBe(false);
    expect(jobRecordSchema.safeParse({ ...record, status: "done" }).success).toBe(false);
  });
});
