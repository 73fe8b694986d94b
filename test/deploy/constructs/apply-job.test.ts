import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  APPLY_JOB_VERSION,
  type ApplyJob,
  idempotencyKey,
  type JobDefinition,
  jobKey,
  parseApplyJob,
} from "../../../src/contract/apply-job.js";
import { UsageError } from "../../../src/errors.js";
import { ROUTER_A, ROUTER_B } from "./support.js";

const DEFINITION: JobDefinition = {
  phase: "create",
  router_id: ROUTER_A,
  description: "dns",
  script: "/ip dns set servers=1.1.1.1",
  make_backup: true,
  express_execute: false,
  needs_acknowledgement: true,
};

function job(overrides: Partial<ApplyJob> = {}): ApplyJob {
  const { phase, ...fields } = DEFINITION;
  return {
    version: APPLY_JOB_VERSION,
    phase,
    resource: "office/edge-1/dns",
    ...fields,
    wait_for: "auto",
    timeout_ms: 600_000,
    job_key: jobKey(DEFINITION),
    ...overrides,
  };
}

describe("jobKey", () => {
  it("changes when any field of the definition changes", () => {
    // GIVEN any definition and one field changed to a different value
    const definitions = fc.record({
      phase: fc.constantFrom("create" as const, "destroy" as const),
      router_id: fc.constantFrom(ROUTER_A, ROUTER_B),
      description: fc.string({ maxLength: 100 }),
      script: fc.string({ maxLength: 200 }),
      make_backup: fc.boolean(),
      express_execute: fc.boolean(),
      needs_acknowledgement: fc.boolean(),
      notify_url: fc.option(fc.webUrl({ validSchemes: ["https"] }), { nil: undefined }),
    });
    const fields = fc.constantFrom(
      ...(Object.keys(DEFINITION) as (keyof JobDefinition)[]),
      "notify_url" as const,
    );
    fc.assert(
      fc.property(definitions, fields, definitions, (a, field, b) => {
        const changed = { ...a, [field]: b[field] };
        // THEN the key changes exactly when the value did
        expect(jobKey(changed) === jobKey(a)).toBe(changed[field] === a[field]);
      }),
    );
  });

  it("does not depend on property order, and an absent notify_url equals an undefined one", () => {
    const reordered = Object.fromEntries(Object.entries(DEFINITION).reverse()) as unknown as JobDefinition;
    expect(jobKey(reordered)).toBe(jobKey(DEFINITION));
    expect(jobKey({ ...DEFINITION, notify_url: undefined })).toBe(jobKey(DEFINITION));
  });
});

describe("idempotencyKey", () => {
  it("is a lowercase version 8 UUID, stable for one instance and different for another", () => {
    const key = idempotencyKey(jobKey(DEFINITION), "1f0e2d3c-4b5a-4968-8776-655443322110");
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(idempotencyKey(jobKey(DEFINITION), "1f0e2d3c-4b5a-4968-8776-655443322110")).toBe(key);
    expect(idempotencyKey(jobKey(DEFINITION), "other-instance")).not.toBe(key);
  });
});

describe("parseApplyJob", () => {
  it("reads a job the constructs write", () => {
    expect(parseApplyJob(JSON.stringify(job()))).toEqual(job());
  });

  it("keeps working when a later minor version adds a field", () => {
    expect(parseApplyJob(JSON.stringify({ ...job(), added_later: 1 })).script).toBe(DEFINITION.script);
  });

  it.each([
    ["not JSON", "{", /^ROUTERJOBS_JOB is not valid JSON/],
    [
      "a newer version",
      JSON.stringify(job({ version: 2 as 1 })),
      /version must be 1 \(got 2\); this routerjobs may be older/,
    ],
    ["an edited script", JSON.stringify(job({ script: "/system reboot" })), /job_key does not match the job/],
    [
      "a long script",
      JSON.stringify(job({ script: "x".repeat(2001) })),
      /script must be at most 2000 characters on the spec API \(got 2001\); the sdx API takes up to 10000/,
    ],
    [
      "a long script for the sites API",
      JSON.stringify(job({ api: "sdx", script: "x".repeat(10_001) })),
      /script must be at most 10000 characters on the sdx API \(got 10001\)/,
    ],
    [
      "an upper-case router id",
      JSON.stringify(job({ router_id: ROUTER_A.toUpperCase() })),
      /router_id: must be a lowercase UUID/,
    ],
    ["an unknown wait mode", JSON.stringify(job({ wait_for: "later" as "poll" })), /wait_for: /],
    ["a missing timeout", JSON.stringify({ ...job(), timeout_ms: undefined }), /timeout_ms: /],
  ])("refuses %s with a UsageError naming the field", (_case, text, message) => {
    expect(() => parseApplyJob(text)).toThrow(UsageError);
    expect(() => parseApplyJob(text)).toThrow(message);
  });

  it("takes a script up to its api's limit: 10000 characters for sdx, 2000 without an api", () => {
    // GIVEN a job of 10000 characters, its key computed on that script
    const script = "x".repeat(10_000);
    const long = { ...job({ script, job_key: jobKey({ ...DEFINITION, script }) }) };
    // THEN the sites API's job reads, and the same job without an api is refused
    expect(parseApplyJob(JSON.stringify({ ...long, api: "sdx" })).script).toHaveLength(10_000);
    expect(() => parseApplyJob(JSON.stringify(long))).toThrow(/at most 2000 characters on the spec API/);
  });
});
