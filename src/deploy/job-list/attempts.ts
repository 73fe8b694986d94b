/**
 * Which attempt a provisioner run belongs to, decided from the service's job list: the only record of what a
 * declared change did that every machine shares and that survives any crash. Pure: the list, what this run
 * is, and what Terraform's state said (through `routerjobs deploy`) or the local journal remembers go in; a
 * decision comes out.
 */
import { type AttemptMarker, parseMarker } from "../../contract/attempt-marker.js";
import type { JobListItem } from "../../contract/envelope.js";
import { isTerminal } from "../../contract/job.js";

export interface ListedAttempt {
  readonly job: JobListItem;
  readonly marker: AttemptMarker;
}

/** What `routerjobs deploy` read from Terraform's state about one declared resource before the apply. */
export interface ResourceKnowledge {
  /** Instance tags of this resource that Terraform's state held: their outcomes were recorded. */
  readonly instances: readonly string[];
  /** The state's instance was tainted: a failure of this resource was reported to Terraform. */
  readonly tainted: boolean;
}

export interface DecideInput {
  /** The router's job list, as the service lists it (newest first). */
  readonly jobs: readonly JobListItem[];
  readonly resourceTag: string;
  readonly definitionTag: string;
  readonly instanceTag: string;
  /** From `routerjobs deploy`; undefined under a plain `terraform apply`. */
  readonly knowledge?: ResourceKnowledge | undefined;
  /** The local journal: whether this machine already reported that attempt's outcome to Terraform. */
  readonly reportedHere: (marker: AttemptMarker) => boolean;
  /**
   * The local journal: whether this machine followed that attempt and its apply ended without its outcome (it
   * gave up waiting, or failed to ask). @default never
   */
  readonly unreportedHere?: (marker: AttemptMarker) => boolean;
  /** How long this change's apply waits for its job (`timeout_ms`). @default unknown */
  readonly timeoutMs?: number | undefined;
  readonly force: boolean;
}

export type Decision =
  | { readonly kind: "adopt"; readonly attempt: ListedAttempt; readonly why: string }
  | { readonly kind: "submit"; readonly attempt: number; readonly why: string };

/** The attempts listed for one resource, newest first (by `seq_id` where the service gives one). */
export function attemptsOf(jobs: readonly JobListItem[], resourceTag: string): ListedAttempt[] {
  const listed: ListedAttempt[] = [];
  for (const job of jobs) {
    const marker = parseMarker(job.description);
    if (marker?.resourceTag === resourceTag) listed.push({ job, marker });
  }
  if (listed.every(({ job }) => job.seq_id !== undefined))
    listed.sort((a, b) => (b.job.seq_id ?? 0) - (a.job.seq_id ?? 0));
  return listed;
}

/**
 * The newest attempt at this definition, unless a job of another definition of the same resource ran after it
 * (a revert to an earlier script, or a destroy job since): then that definition has to run again.
 */
export function currentAttempt(
  attempts: readonly ListedAttempt[],
  definitionTag: string,
): { latest: ListedAttempt | undefined; superseded: boolean; highest: number } {
  const index = attempts.findIndex(({ marker }) => marker.definitionTag === definitionTag);
  const highest = attempts
    .filter(({ marker }) => marker.definitionTag === definitionTag)
    .reduce((max, { marker }) => Math.max(max, marker.attempt), 0);
  return { latest: attempts[index], superseded: index > 0, highest };
}

export function decide(input: DecideInput): Decision {
  const { latest, superseded, highest } = currentAttempt(
    attemptsOf(input.jobs, input.resourceTag),
    input.definitionTag,
  );
  const next = (why: string): Decision => ({ kind: "submit", attempt: highest + 1, why });
  if (!latest) return next("no attempt at this change is listed");
  // Rules in order; the first that applies decides.
  // 1. A queued or running attempt is this change on its way: wait for it, whoever submitted it (a killed run,
  //    or a run whose provisioner timed out).
  if (!isTerminal(latest.job.status)) return { kind: "adopt", attempt: latest, why: "in flight" };
  // 2. Asked for by name.
  if (input.force) return next("--force");
  // 3. Another definition of this resource ran after it: running this one again is the declared change.
  if (superseded) return next("another definition of this resource ran since");
  // 4. This instance's own attempt (a destroy retried on the same instance, or a run by hand): done when it
  //    completed; a failure runs again only when this machine already reported it.
  if (latest.marker.instanceTag === input.instanceTag) {
    if (latest.job.status !== "completed" && input.reportedHere(latest.marker))
      return next("its failure was reported from this machine");
    return { kind: "adopt", attempt: latest, why: "this instance's own attempt" };
  }
  const knowledge = input.knowledge;
  if (knowledge) {
    // 5. Terraform's state, read by `routerjobs deploy`, is exact about what Terraform recorded.
    const recorded = knowledge.instances.includes(latest.marker.instanceTag);
    if (knowledge.tainted) {
      // Terraform recorded a failed provisioner: the job failed (its own, or one it found and reported), or apply
      // gave up waiting for it (a timeout). A failure was reported; a job that completed since is the change.
      if (latest.job.status !== "completed") {
        // Unless the apply that followed it gave up waiting first: its failure came after, unheard. The journal
        // knows where this machine ran that apply; on any machine, the job's times can prove it.
        if (
          input.unreportedHere?.(latest.marker) ||
          (recorded && endedAfterItsApplyGaveUp(latest.job, input.timeoutMs))
        )
          return { kind: "adopt", attempt: latest, why: "it failed after its apply stopped waiting" };
        return next("its failure was reported (the resource was tainted)");
      }
      return {
        kind: "adopt",
        attempt: latest,
        why: recorded ? "it completed after its apply stopped waiting" : "an interrupted run made it",
      };
    }
    if (recorded) return next("Terraform recorded that attempt's outcome and replaces the resource");
    return { kind: "adopt", attempt: latest, why: "an interrupted run made it" };
  }
  // 6. Without the state: this machine's journal knows what it reported.
  if (input.reportedHere(latest.marker)) return next("its outcome was reported from this machine");
  // 7. Unknown: never run a change twice; a completed attempt is done and a failed one is reported.
  return { kind: "adopt", attempt: latest, why: "the latest attempt at this change" };
}

/**
 * Whether a job ended (failed, or was deleted) after the apply that submitted it had certainly stopped waiting.
 * That apply's deadline is `timeoutMs` after it started, and it started before the submission: so a job that
 * ended more than `timeoutMs` after the service accepted it (`created_at`, where the list says; else after it
 * started, which is later) ended after that deadline. Both times are the service's clock. A job that ended
 * sooner may have been seen by that apply, and is taken as reported.
 */
function endedAfterItsApplyGaveUp(job: JobListItem, timeoutMs: number | undefined): boolean {
  const ended = job.failed_at ?? job.deleted_at;
  const since = job.created_at ?? job.started_at;
  if (timeoutMs === undefined || !ended || !since) return false;
  return Date.parse(ended) - Date.parse(since) > timeoutMs;
}
