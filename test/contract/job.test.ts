import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DESCRIPTION_MAX_CHARS,
  isTerminal,
  jobListItemSchema,
  jobRequestSchema,
  jobRequestSchemaFor,
  notificationSchema,
  SCRIPT_CHARS,
  SCRIPT_MAX_CHARS,
  SEQ_ID_MAX,
  scriptLengthProblem,
} from "../../src/contract/index.js";

const valid = { description: "set identity", script: "/system identity set name=edge-1" };

function issuesOf(input: unknown): string[] {
  const result = jobRequestSchema.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

describe("job request limits", () => {
  /** Characters of one, two (é) and four bytes (😀 and 𝄞, two UTF-16 code units each): each counts as one. */
  const char = fc.constantFrom("d", "é", "😀", "𝄞");

  it("accepts every description length up to the limit and names field, limit and length above it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: DESCRIPTION_MAX_CHARS + 50 }), char, (length, c) => {
        const issues = issuesOf({ ...valid, description: c.repeat(length) });
        if (length <= DESCRIPTION_MAX_CHARS) expect(issues).toEqual([]);
        else
          expect(issues).toEqual([`description: description must be at most 100 characters (got ${length})`]);
      }),
    );
  });

  it("accepts every script length up to the limit and names field, limit and length above it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: SCRIPT_MAX_CHARS - 20, max: SCRIPT_MAX_CHARS + 20 }),
        char,
        (length, c) => {
          const issues = issuesOf({ ...valid, script: `:put "${c.repeat(length - 7)}"` });
          if (length <= SCRIPT_MAX_CHARS) expect(issues).toEqual([]);
          else
            expect(issues).toEqual([
              `script: script must be at most 2000 characters on the spec API (got ${length}); the sdx API takes up to 10000`,
            ]);
        },
      ),
    );
  });

  it("counts characters, not UTF-16 units: any mix of code points at the edge of the description limit", () => {
    const oneChar = fc.oneof(
      fc.constantFrom("😀", "é", "a"),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((c) => c !== "\u0000"),
    );
    const chars = fc.array(oneChar, {
      minLength: DESCRIPTION_MAX_CHARS - 2,
      maxLength: DESCRIPTION_MAX_CHARS + 2,
    });
    fc.assert(
      fc.property(chars, (list) => {
        const issues = issuesOf({ ...valid, description: list.join("") });
        if (list.length <= DESCRIPTION_MAX_CHARS) expect(issues).toEqual([]);
        else
          expect(issues).toEqual([
            `description: description must be at most 100 characters (got ${list.length})`,
          ]);
      }),
    );
  });

  it("refuses NUL and unpaired surrogates in every string field, naming the field", () => {
    const base = { ...valid, notify_url: "https://receiver.example/notify/x" };
    for (const field of ["description", "script", "notify_url"] as const) {
      expect(issuesOf({ ...base, [field]: `${base[field]}\u0000` })).toEqual([
        `${field}: ${field} must not contain NUL characters (\\u0000)`,
      ]);
      expect(issuesOf({ ...base, [field]: `${base[field]}\udfff` })).toEqual([
        `${field}: ${field} must not contain unpaired UTF-16 surrogates (\\ud800-\\udfff)`,
      ]);
    }
  });

  it("rejects empty description and script", () => {
    expect(issuesOf({ description: "", script: "" })).toEqual([
      "description: description must not be empty",
      "script: script must not be empty",
    ]);
  });

  it("accepts only absolute https notify URLs", () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ["http", "https", "ftp"] }), (url) => {
        const ok = issuesOf({ ...valid, notify_url: url }).length === 0;
        expect(ok).toBe(url.startsWith("https://"));
      }),
    );
    expect(issuesOf({ ...valid, notify_url: "https:relative" })).toHaveLength(1);
    expect(issuesOf({ ...valid, notify_url: "HTTPS://Example.com/x" })).toEqual([]);
  });

  it("applies the spec's defaults to missing booleans and refuses wrong types by name", () => {
    expect(jobRequestSchema.parse(valid)).toMatchObject({
      make_backup: false,
      express_execute: false,
      needs_acknowledgement: true,
    });
    for (const wrong of ["true", 1, null]) {
      expect(issuesOf({ ...valid, needs_acknowledgement: wrong })[0]).toMatch(
        /^needs_acknowledgement: needs_acknowledgement must be a boolean true or false \(got /,
      );
    }
  });

  it("refuses unknown fields so that typos do not pass", () => {
    expect(issuesOf({ ...valid, make_bakup: true })).toEqual([": unknown field make_bakup"]);
  });

  it("never echoes a whole long value in an error", () => {
    const long = "x".repeat(5000);
    const [issue] = issuesOf({ ...valid, notify_url: long });
    expect(issue?.length).toBeLessThan(200);
  });
});

describe("tolerant response schemas", () => {
  const item = {
    id: "3f1c9a3e-2b7d-4c1e-9a51-0c2f4b6d8e10",
    token: "t",
    idempotency_key: "9b2e6f0a-1c3d-4e5f-8a7b-6c5d4e3f2a1b",
    description: "d",
    express_execute: false,
    needs_acknowledgement: true,
    make_backup: true,
    started_at: null,
    completed_at: null,
    failed_at: null,
    deleted_at: null,
    status: "pending",
  };

  it("keeps unknown fields and fills missing optional times with null", () => {
    const { started_at: _dropped, ...withoutStart } = item;
    const parsed = jobListItemSchema.parse({ ...withoutStart, portal_note: "x" });
    expect(parsed.portal_note).toBe("x");
    expect(parsed.started_at).toBeNull();
  });

  it("reads any status outside the known set as 'unknown', which is never terminal", () => {
    fc.assert(
      fc.property(fc.string(), (status) => {
        fc.pre(!["busy", "done", "fail"].includes(status)); // the device's words: tolerant-job.test.ts
        const parsed = jobListItemSchema.parse({ ...item, status });
        const known = ["pending", "loaded", "running", "completed", "failed", "deleted"].includes(status);
        expect(parsed.status).toBe(known ? status : "unknown");
        if (!known) expect(isTerminal(parsed.status)).toBe(false);
      }),
    );
  });

  it("parses a notification with an offset timestamp and the error extension", () => {
    const parsed = notificationSchema.parse({
      ...item,
      job_id: item.id,
      customer_id: item.id,
      router_id: item.id,
      seq_id: 3,
      status: "failed",
      failed_at: "2026-11-22T17:22:28.123+00:00",
      error: "no such item (line 2 column 1)",
    });
    expect(parsed.status).toBe("failed");
    expect(parsed.error).toContain("line 2");
  });

  describe("a notification the receiver will store", () => {
    const notification = { ...item, job_id: item.id, customer_id: item.id, router_id: item.id, seq_id: 3 };
    const issuesOfNotification = (input: unknown) => {
      const result = notificationSchema.safeParse(input);
      return result.success
        ? []
        : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    };

    it("refuses NUL or an unpaired surrogate in any string: known field, unknown field or status", () => {
      const bad = fc.constantFrom("\u0000", "\ud800", "\udc00");
      const field = fc.constantFrom(
        "description",
        "job_id",
        "router_id",
        "customer_id",
        "idempotency_key",
        "error",
        "status",
        "note",
      );
      fc.assert(
        fc.property(field, bad, fc.string({ unit: "binary" }), (name, char, text) => {
          const value = `${text.replaceAll("\u0000", "")}${char}`;
          const issues = issuesOfNotification({ ...notification, [name]: value });
          expect(issues).toHaveLength(1);
          expect(issues[0]).toMatch(
            new RegExp(`^${name}: ${name} must not contain (NUL characters|unpaired UTF-16 surrogates)`),
          );
        }),
      );
      expect(issuesOfNotification({ ...notification, note: { deep: ["ok", "\u0000"] } })).toEqual([
        "note.deep.1: note.deep.1 must not contain NUL characters (\\u0000)",
      ]);
      expect(issuesOfNotification({ ...notification, "x\u0000": 1 })).toEqual([
        ": a field name in (body) must not contain NUL characters (\\u0000)",
      ]);
      expect(issuesOfNotification({ ...notification, description: "😀 fine" })).toEqual([]);
    });

    it("takes seq_id from 1 to the integer column's maximum, and names it otherwise", () => {
      for (const seq of [1, SEQ_ID_MAX]) {
        expect(issuesOfNotification({ ...notification, seq_id: seq })).toEqual([]);
      }
      for (const [seq, shown] of [
        [SEQ_ID_MAX + 1, "number 2147483648"],
        [0, "number 0"],
        [1.5, "number 1.5"],
        [1e300, "number 1e+300"],
        ["7", '"7"'],
      ] as const) {
        expect(issuesOfNotification({ ...notification, seq_id: seq })).toEqual([
          `seq_id: seq_id must be a whole number from 1 to 2147483647 (got ${shown})`,
        ]);
      }
      // The public service documents no seq_id: a notification without one is stored all the same.
      const { seq_id: _missing, ...withoutSeq } = notification;
      expect(issuesOfNotification(withoutSeq)).toEqual([]);
    });
  });

  it("rejects a timestamp without an offset", () => {
    expect(jobListItemSchema.safeParse({ ...item, started_at: "2026-11-22T17:22:28" }).success).toBe(false);
  });
});

describe("script limits by API profile", () => {
  it("takes every length within the profile's limits and names the profile and the limit outside them", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("spec" as const, "sdx" as const),
        fc.integer({ min: 0, max: 10_050 }),
        (api, length) => {
          const { min, max } = SCRIPT_CHARS[api];
          const problem = scriptLengthProblem("x".repeat(length), api);
          if (length === 0) expect(problem).toBe("must not be empty");
          else if (length < min)
            expect(problem).toBe(`must be at least ${min} characters on the ${api} API (got ${length})`);
          else if (length <= max) expect(problem).toBeUndefined();
          else
            expect(problem).toMatch(
              new RegExp(`^must be at most ${max} characters on the ${api} API \\(got ${length}\\)`),
            );
        },
      ),
    );
  });

  it("points a script too long for spec at sdx, and one too long for every profile at none", () => {
    expect(scriptLengthProblem("x".repeat(2417), "spec")).toBe(
      "must be at most 2000 characters on the spec API (got 2417); the sdx API takes up to 10000",
    );
    expect(scriptLengthProblem("x".repeat(10_001), "sdx")).toBe(
      "must be at most 10000 characters on the sdx API (got 10001)",
    );
    expect(scriptLengthProblem("x".repeat(10_001), "spec")).toBe(
      "must be at most 2000 characters on the spec API (got 10001)",
    );
  });

  it("counts characters, not UTF-16 units, at the sites API's limit", () => {
    const astral = "😀".repeat(10_000);
    expect(jobRequestSchemaFor("sdx").safeParse({ ...valid, script: astral }).success).toBe(true);
    expect(jobRequestSchemaFor("sdx").safeParse({ ...valid, script: `${astral}x` }).success).toBe(false);
  });
});
