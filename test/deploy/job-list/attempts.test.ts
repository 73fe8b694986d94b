import { describe, expect, it } from "vitest";
import { type AttemptMarker, tagOf } from "../../../src/contract/attempt-marker.js";
import type { JobListItem } from "../../../src/contract/job.js";
import { type DecideInput, decide, type ResourceKnowledge } from "../../../src/deploy/job-list/attempts.js";
import { listedJob } from "../apply/listed-job.js";

const R = tagOf("office/edge-1/dns");
const A = tagOf("definition A");
const B = tagOf("definition B");
const X = tagOf("instance X");
const Y = tagOf("instance Y");
let seq = 0;

function listed(status: JobListItem["status"], marker: Partial<AttemptMarker> = {}): JobListItem {
  seq += 1;
  return listedJob(status, { resourceTag: R, definitionTag: A, instanceTag: X, attempt: 1, ...marker }, seq);
}

/** Y runs definition A; `jobs` oldest first, as a person reads a history. */
function run(jobs: JobListItem[], extra: Partial<DecideInput> = {}) {
  return decide({
    jobs: [...jobs].reverse(),
    resourceTag: R,
    definitionTag: A,
    instanceTag: Y,
    reportedHere: () => false,
    force: false,
    ...extra,
  });
}
const state = (k: Partial<ResourceKnowledge>): ResourceKnowledge => ({
  instances: [],
  tainted: false,
  ...k,
});

describe("which attempt a provisioner run belongs to", () => {
  it("submits attempt 1 when nothing of this change is listed (other resources' and unmarked jobs aside)", () => {
    const other = listed("completed", { resourceTag: tagOf("office/edge-1/identity") });
    const byHand = { ...listed("completed"), description: "set by hand" };
    expect(run([other, byHand])).toMatchObject({ kind: "submit", attempt: 1 });
  });

  it("waits for an attempt in flight, whoever submitted it, even with --force or a tainted resource", () => {
    for (const status of ["pending", "loaded", "running", "unknown-status"] as const) {
      const job = listed(status as JobListItem["status"]);
      expect(run([job], { force: true, knowledge: state({ tainted: true, instances: [X] }) })).toMatchObject({
        kind: "adopt",
      });
    }
  });

  it("without Terraform's state or a journal, a completed attempt is done and a failed one is reported", () => {
    expect(run([listed("completed")])).toMatchObject({ kind: "adopt" });
    expect(run([listed("failed")])).toMatchObject({ kind: "adopt" });
    expect(run([listed("deleted")])).toMatchObject({ kind: "adopt" });
  });

  it("runs again after a revert: another definition of the resource ran since", () => {
    const decision = run([listed("completed"), listed("completed", { definitionTag: B, instanceTag: Y })]);
    expect(decision).toMatchObject({ kind: "submit", attempt: 2 });
  });

  it("runs again with --force, numbering on", () => {
    expect(run([listed("completed", { attempt: 4 })], { force: true })).toMatchObject({
      kind: "submit",
      attempt: 5,
    });
  });

  describe("with what routerjobs deploy read from Terraform's state", () => {
    it("adopts an attempt of an instance the state never recorded (a killed run)", () => {
      expect(run([listed("completed")], { knowledge: state({ instances: [] }) })).toMatchObject({
        kind: "adopt",
      });
      expect(run([listed("failed")], { knowledge: state({ instances: [] }) })).toMatchObject({
        kind: "adopt",
      });
    });
    it("runs again when the state recorded that attempt's instance (-replace)", () => {
      expect(run([listed("completed")], { knowledge: state({ instances: [X] }) })).toMatchObject({
        kind: "submit",
        attempt: 2,
      });
    });
    it("runs again a failure that was reported (tainted), but not a completion after a timeout", () => {
      // The state holds the tainted instance X, which made the attempt.
      const tainted = state({ instances: [X], tainted: true });
      expect(run([listed("failed")], { knowledge: tainted })).toMatchObject({ kind: "submit", attempt: 2 });
      expect(run([listed("completed")], { knowledge: tainted })).toMatchObject({
        kind: "adopt",
        why: "it completed after its apply stopped waiting",
      });
    });
    it("reports a failure that came after this machine's apply stopped waiting, although the resource is tainted", () => {
      const decision = run([listed("failed")], {
        knowledge: state({ instances: [X], tainted: true }),
        unreportedHere: () => true,
      });
      expect(decision).toMatchObject({ kind: "adopt", why: "it failed after its apply stopped waiting" });
    });
    describe("on a machine without the journal of the apply that timed out, by the job's times", () => {
      const tainted = state({ instances: [X], tainted: true });
      const TIMEOUT_MS = 600_000;
      const at = (ms: number) => new Date(Date.UTC(2026, 10, 29, 12) + ms).toISOString();
      const timed = (status: "failed" | "deleted", times: Partial<JobListItem>, marker = {}) => ({
        ...listed(status, marker),
        ...times,
      });
      it("reports a failure that ended more than the apply's timeout after the service accepted the job", () => {
        const job = timed("failed", { created_at: at(0), started_at: at(700_000), failed_at: at(700_100) });
        expect(run([job], { knowledge: tainted, timeoutMs: TIMEOUT_MS })).toMatchObject({
          kind: "adopt",
          why: "it failed after its apply stopped waiting",
        });
      });
      it("and a deletion, which the apply would have reported as such", () => {
        const job = timed("deleted", { created_at: at(0), deleted_at: at(TIMEOUT_MS + 1) });
        expect(run([job], { knowledge: tainted, timeoutMs: TIMEOUT_MS })).toMatchObject({ kind: "adopt" });
      });
      it("runs again a failure that ended within the timeout: its apply may have seen and reported it", () => {
        const job = timed("failed", { created_at: at(0), started_at: at(1_000), failed_at: at(TIMEOUT_MS) });
        expect(run([job], { knowledge: tainted, timeoutMs: TIMEOUT_MS })).toMatchObject({
          kind: "submit",
          attempt: 2,
        });
      });
      it("where the list has no created_at (the spec's), counts from the start, which only comes later", () => {
        // Started late and failed at once: the apply had surely given up, but the list cannot tell.
        const late = timed("failed", { started_at: at(700_000), failed_at: at(700_100) });
        expect(run([late], { knowledge: tainted, timeoutMs: TIMEOUT_MS })).toMatchObject({ kind: "submit" });
        const long = timed("failed", { started_at: at(0), failed_at: at(TIMEOUT_MS + 1) });
        expect(run([long], { knowledge: tainted, timeoutMs: TIMEOUT_MS })).toMatchObject({ kind: "adopt" });
      });
      it("only for the attempt of the tainted instance itself, and only when the timeout is known", () => {
        const times = { created_at: at(0), failed_at: at(TIMEOUT_MS + 1) };
        const killedRuns = timed("failed", times, { instanceTag: tagOf("instance Z") });
        expect(run([killedRuns], { knowledge: tainted, timeoutMs: TIMEOUT_MS })).toMatchObject({
          kind: "submit",
        });
        expect(run([timed("failed", times)], { knowledge: tainted })).toMatchObject({ kind: "submit" });
      });
    });
    it("runs again a reported failure that the tainted instance found rather than made (a killed run's)", () => {
      const killedRuns = { instanceTag: tagOf("instance Z") };
      expect(
        run([listed("failed", killedRuns)], { knowledge: state({ instances: [X], tainted: true }) }),
      ).toMatchObject({ kind: "submit", attempt: 2 });
    });
    it("decides a new definition by its own attempts, whatever became of the state's (create_before_destroy)", () => {
      // The state still holds instance X of definition B (never recorded as replaced); a killed run's instance
      // Z already ran definition A, which this replacement declares: that is the change, done.
      const history = [
        listed("completed", { definitionTag: B }),
        listed("completed", { instanceTag: tagOf("instance Z") }),
      ];
      expect(run(history, { knowledge: state({ instances: [X] }) })).toMatchObject({
        kind: "adopt",
        why: "an interrupted run made it",
      });
    });
  });

  it("with the journal: runs again what this machine reported, adopts what it did not", () => {
    const reported = () => true;
    expect(run([listed("completed")], { reportedHere: reported })).toMatchObject({ kind: "submit" });
    expect(run([listed("failed")], { reportedHere: () => false })).toMatchObject({ kind: "adopt" });
  });

  it("the same instance (a retried destroy, a run by hand) is done when completed, runs again a reported failure", () => {
    const mine = { instanceTag: Y };
    expect(run([listed("completed", mine)], { reportedHere: () => true })).toMatchObject({ kind: "adopt" });
    expect(run([listed("failed", mine)], { reportedHere: () => true })).toMatchObject({
      kind: "submit",
      attempt: 2,
    });
    expect(run([listed("failed", mine)])).toMatchObject({ kind: "adopt" });
  });
});
