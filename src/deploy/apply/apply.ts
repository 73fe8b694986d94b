import type { RouterJobsClient } from "../../client/client.js";
import { ApiError, NetworkError, RateLimitedError, TimeoutError } from "../../client/errors.js";
import { isServiceNotThere, isTransient, patiently } from "../../client/patience.js";
import { type ApplyJob, DEFAULT_EXPRESS_EXECUTE, idempotencyKey } from "../../contract/apply-job.js";
import {
  type AttemptMarker,
  markDescription,
  markerText,
  parseMarker,
  tagOf,
} from "../../contract/attempt-marker.js";
import { formatDuration } from "../../contract/duration.js";
import type { JobListItem } from "../../contract/envelope.js";
import { isTerminal, type JobStatus } from "../../contract/job.js";
import { RESTARTED_DURING_JOB } from "../../contract/routers/router-backend.js";
import { InterruptedError } from "../../errors.js";
import type { ReceiverClient } from "../../service/receiver/wait-client.js";
import { attemptsOf, decide, type ResourceKnowledge } from "../job-list/attempts.js";
import { failureReason } from "../job-list/failure-reason.js";
import { EXPRESS_SCHEDULE, findJob, type JobMatch, pollJob, TICK_SCHEDULE } from "../job-list/poll.js";
import { rollBackFailedJob, rollbackWanted } from "../rollback/rollback-on-failure.js";
import type { DeployKnowledge } from "./deploy-knowledge.js";
import type { Journal } from "./journal.js";
import { Progress } from "./progress.js";
import { confirmationJob, safeChangeResult } from "./safe-change.js";

/**
 * `routerjobs apply`: submit one declared job with its backup and confirm it, exactly once.
 *
 * The service's job list is the record of what a declared change did: every attempt carries a marker at the
 * end of its description (resource, definition, Terraform instance, attempt number), which any service stores
 * and lists. Before submitting, apply reads the router's list (or the copy `routerjobs deploy` read once for
 * the whole apply) and decides (attempts.ts): an attempt in flight is waited for, a completed one is done, a
 * failed one is reported, and only a change with no attempt, or one Terraform deliberately asks to run again,
 * is submitted. The local journal is a cache of what this machine reported, never the only record.
 */
export interface ApplyContext {
  readonly client: RouterJobsClient;
  readonly journal: Journal;
  /** Terraform's id of the resource instance (`self.id`); "manual" when run by hand. */
  readonly instanceId: string;
  /** What `routerjobs deploy` read before this apply: the job lists and Terraform's state. */
  readonly knowledge?: DeployKnowledge | undefined;
  /** Set when notifications can be awaited through a receiver. */
  readonly receiver?: ReceiverClient | undefined;
  /** The receiver's `notify_url` (holds its path secret, so it comes from the environment, never from synth). */
  readonly notifyUrl?: string | undefined;
  /** Run the job again although its latest attempt is done. */
  readonly force?: boolean;
  /** `--rollback-on-failure`: restore the router from the job's backup when it fails, whatever the job says. */
  readonly rollbackOnFailure?: boolean;
  readonly write: (line: string) => void;
  readonly signal?: AbortSignal;
  /** How long the receiver may stay silent about a job before the job list is asked. @default 30 s */
  readonly receiverQuietMs?: number;
}

/** What apply needs to know of a job, whether the job list or the receiver told it. */
export interface SeenJob {
  readonly id: string;
  readonly seq_id?: number | undefined;
  readonly status: JobStatus;
  readonly started_at?: string | null | undefined;
  readonly error?: string | null | undefined;
}

export type ApplyResult =
  | { readonly outcome: "completed"; readonly job: SeenJob | undefined; readonly alreadyApplied: boolean }
  | { readonly outcome: "failed" | "deleted"; readonly job: SeenJob; readonly reason: string }
  | { readonly outcome: "timeout"; readonly job: SeenJob | undefined };

/**
 * What deploy's knowledge means for a declared `terraform_data` resource that Terraform's state does not hold
 * (the state keeps such a resource's identity once recorded): Terraform recorded no outcome of it, so every
 * attempt listed for it was made by an interrupted run (one whose apply may even have reported to a Terraform
 * killed before it wrote its state), never by a `-replace`. Without this, the journal's "reported here" would
 * run such a change again.
 */
const NOT_IN_STATE: ResourceKnowledge = { instances: [], tainted: false };

/** What deploy's state read says of `resource`: undefined when there was none, or it could not have seen it. */
function stateKnowledge(
  knowledge: DeployKnowledge | undefined,
  resource: string,
): ResourceKnowledge | undefined {
  if (!knowledge) return undefined;
  return knowledge.resources[resource] ?? (knowledge.tracked.includes(resource) ? NOT_IN_STATE : undefined);
}

/** The attempt this run follows: its marker, and what identifies its job once submitted. */
interface Attempt {
  readonly marker: AttemptMarker;
  /** The `idempotency_key` the service answered or listed (its own, or the one sent). */
  serviceKey: string;
  /** The job's id as the acknowledgement gave it (the sites API's does), before the job is seen. */
  jobId?: string | undefined;
  seen: SeenJob | undefined;
}

export async function applyJob(job: ApplyJob, given: ApplyContext): Promise<ApplyResult> {
  const deadline = Date.now() + job.timeout_ms;
  const progress = new Progress(job.resource, given.write, job.rollout);
  // The sites API has no notify_url, so no notification can reach a receiver: confirm by the job list.
  const sdxReceiver = given.client.api === "sdx" && given.receiver !== undefined;
  if (sdxReceiver) progress.line("the sdx API sends no notifications: confirming by polling the job list");
  const context: ApplyContext = sdxReceiver ? { ...given, receiver: undefined } : given;
  const tags = {
    resourceTag: tagOf(job.resource),
    definitionTag: tagOf(job.job_key),
    instanceTag: tagOf(context.instanceId),
  };
  const entry = await context.journal.read(job.job_key);
  /** This machine's journal row of an attempt, when it made or followed it. */
  const followedHere = (marker: AttemptMarker) =>
    entry?.attempts.find((row) => row.marker === markerText(marker));
  // Only this resource's attempts count (decide() looks at nothing else): asked for by their marker's prefix,
  // the look costs the same whatever the router's history, where the service filters. Where it does not (the
  // sites API), the list is read newest first only down to this definition's latest attempt (`settled`).
  const jobs =
    context.knowledge?.routers[job.router_id] ??
    (await patiently(
      () =>
        context.client.findJobs(job.router_id, resourceText(tags.resourceTag), {
          deadlineMs: Math.max(1, deadline - Date.now()),
          signal: context.signal,
          enough: (found) => settled(found, tags),
        }),
      // The first contact: a service that is not there fails now, with the reason, instead of at the timeout.
      {
        deadline,
        signal: context.signal,
        transient: (error) => isTransient(error) && !isServiceNotThere(error),
      },
    ));
  const decision = decide({
    jobs,
    ...tags,
    knowledge: stateKnowledge(context.knowledge, job.resource),
    reportedHere: (marker) => followedHere(marker)?.reported === true,
    unreportedHere: (marker) => {
      const row = followedHere(marker);
      return row !== undefined && row.reported !== true;
    },
    timeoutMs: job.timeout_ms,
    force: context.force ?? false,
  });

  let attempt: Attempt;
  if (decision.kind === "adopt") {
    const listed = decision.attempt.job;
    attempt = { marker: decision.attempt.marker, serviceKey: listed.idempotency_key, seen: listed };
    progress.line(
      `this change is already job ${label(listed)} (${listed.status}; ${decision.why}): not submitting it again`,
    );
  } else {
    const number = numberPastJournal(decision.attempt, entry?.attempts ?? [], tags);
    attempt = await submit(job, { ...tags, attempt: number }, context, deadline, progress);
    progress.line(`submitted${job.make_backup ? " with a backup" : ""} (attempt ${number}: ${decision.why})`);
  }
  const identity = { jobKey: job.job_key, resource: job.resource, routerId: job.router_id };
  const journal = (seen: SeenJob | undefined, reported: boolean) =>
    context.journal.update(identity, (journalEntry) => {
      const text = markerText(attempt.marker);
      let row = journalEntry.attempts.find((a) => a.marker === text);
      if (!row) {
        row = {
          attempt: attempt.marker.attempt,
          marker: text,
          idempotencyKey: attempt.serviceKey,
          instanceId: context.instanceId,
          submittedAt: new Date().toISOString(),
          status: seen?.status ?? "pending",
        };
        journalEntry.attempts.push(row);
      }
      row.status = seen?.status ?? row.status;
      if (seen?.id) row.jobId = seen.id;
      if (seen?.error) row.error = seen.error;
      if (reported) {
        row.reported = true;
        row.finishedAt = new Date().toISOString();
      }
    });

  // What this machine is waiting for, before the wait: `receiver status` and a person can see it.
  await journal(attempt.seen, false);
  const final =
    attempt.seen && isTerminal(attempt.seen.status)
      ? attempt.seen
      : await confirm(job, attempt, deadline, context, progress).catch(async (error: unknown) => {
          if (!context.signal?.aborted) throw error;
          const cancelled = await cancelOnInterrupt(job, attempt, context, progress);
          if (cancelled === undefined) throw error;
          // Its number is taken: the journal keeps it, so the next apply numbers past it (`numberPastJournal`).
          await journal({ id: cancelled, status: "deleted" }, true);
          throw new InterruptedError(
            `interrupted: job ${cancelled} was cancelled before it started; the next apply submits the change again`,
          );
        });
  if (!final || !isTerminal(final.status)) {
    await journal(final, false);
    progress.line(
      `not finished after ${formatDuration(job.timeout_ms)}: job ${final ? `${label(final)} is ${final.status}` : "not yet listed"}` +
        " (is the router offline?); the next apply waits for the same job",
    );
    return { outcome: "timeout", job: final };
  }
  const adopted = decision.kind === "adopt";
  if (final.status === "completed") {
    await journal(final, true);
    const completed = { outcome: "completed", job: final, alreadyApplied: adopted } as const;
    const confirmation = confirmationJob(job);
    if (!confirmation) return completed;
    return safeChangeResult(job, completed, await applyJob(confirmation, given), {
      client: context.client,
      write: (line) => progress.line(line),
    });
  }
  const confirmation = confirmationJob(job);
  if (confirmation && final.status === "failed" && final.error === RESTARTED_DURING_JOB) {
    // A safe change whose outcome the router's restart took: the follow-up tells whether that was the revert.
    await journal(final, true);
    progress.line(`job ${label(final)} failed: ${final.error}`);
    const failed = { outcome: "failed", job: final, reason: final.error } as const;
    return safeChangeResult(job, failed, await applyJob(confirmation, given), {
      client: context.client,
      write: (line) => progress.line(line),
    });
  }
  let reason = await failureReason(context.client, job.router_id, final, deadline);
  // The restore before the journal says "reported": an apply killed meanwhile finds the restore by its marker.
  if (final.status === "failed" && rollbackWanted(job, context.rollbackOnFailure))
    reason = `${reason}; ${await rollBackFailedJob(job, final, { ...context, write: (line) => progress.line(line) })}`;
  await journal(final, true);
  progress.line(`job ${label(final)} ${final.status}: ${reason}`);
  if (adopted && job.phase === "destroy" && attempt.marker.instanceTag === tags.instanceTag)
    // A destroy retried on the same instance: Terraform keeps nothing of a failed destroy provisioner (no taint;
    // a tainted resource would skip its destroy provisioners), so only the journal of the machine that reported
    // it could tell this run apart from a run killed before reporting.
    progress.line(
      "a destroy job's failure leaves no mark in Terraform's state and this machine's journal has no report " +
        "of it: if an earlier run already reported this failure, run it again with ROUTERJOBS_FORCE=1",
    );
  else if (adopted && !context.knowledge)
    progress.line(
      "if an earlier deploy already reported this failure, run it again with `routerjobs deploy` (it reads " +
        "Terraform's state) or with ROUTERJOBS_FORCE=1",
    );
  return { outcome: final.status === "deleted" ? "deleted" : "failed", job: final, reason };
}

/**
 * Ctrl-C while the job waits: where the API cancels a job that has not started (the sites API), it is
 * cancelled, so that an interrupted deploy leaves nothing queued behind it; a job that started already is
 * said so and left to finish (the next apply follows it). Its own short deadline: the apply's signal has
 * fired.
 */
async function cancelOnInterrupt(
  job: ApplyJob,
  attempt: Attempt,
  context: ApplyContext,
  progress: Progress,
): Promise<string | undefined> {
  const jobId = attempt.seen?.id ?? attempt.jobId;
  if (jobId === undefined || !context.client.offersOneJob) return undefined;
  try {
    await context.client.cancelJob(job.router_id, jobId, { deadlineMs: CANCEL_DEADLINE_MS });
    progress.line(
      `interrupted: job ${jobId} cancelled before it started; the next apply submits the change again`,
    );
    return jobId;
  } catch (error) {
    if (error instanceof ApiError && error.apiCode === "job_already_started")
      progress.line(
        `interrupted: job ${jobId} had already started, so it runs to its end; the next apply follows it`,
      );
    else
      progress.line(
        `interrupted: job ${jobId} could not be cancelled (${(error as Error).message}); the next apply follows it`,
      );
    return undefined;
  }
}

const CANCEL_DEADLINE_MS = 5000;

/**
 * Submits the attempt. When the request may have reached the service but no answer came back (a reset, a
 * timeout, a 5xx), the job list is asked for the attempt's marker before anything is sent again: a service
 * that ignores `Idempotency-Key` would otherwise run the change twice.
 */
async function submit(
  job: ApplyJob,
  marker: AttemptMarker,
  context: ApplyContext,
  deadline: number,
  progress: Progress,
): Promise<Attempt> {
  const notifyUrl = job.notify_url ?? (context.receiver ? context.notifyUrl : undefined);
  const key = idempotencyKey(job.job_key, markerText(marker));
  const request = {
    description: markDescription(job.description, marker, job.rollout),
    script: job.script,
    make_backup: job.make_backup,
    express_execute: expressOf(job),
    needs_acknowledgement: job.needs_acknowledgement,
    ...(notifyUrl ? { notify_url: notifyUrl } : {}),
  };
  for (;;) {
    try {
      // A 429 means the service did not take the submission, and the marker makes a repeat safe: so a deploy
      // sharing its key with a busy neighbour waits (the client's shared budget holds every process until
      // Retry-After) instead of failing, until its own timeout.
      const { ack } = await patiently(
        () =>
          context.client.submitJob(job.router_id, request, {
            idempotencyKey: key,
            deadlineMs: Math.max(1, deadline - Date.now()),
            signal: context.signal,
          }),
        {
          deadline,
          signal: context.signal,
          schedule: AT_ONCE,
          transient: (error) => error instanceof RateLimitedError,
        },
      );
      const jobId = typeof ack.job_id === "string" ? ack.job_id : undefined;
      return { marker, serviceKey: ack.idempotency_key, jobId, seen: undefined };
    } catch (error) {
      if (!mayHaveArrived(error) || Date.now() >= deadline) throw error;
      progress.line(
        `the submission may have reached the service (${(error as Error).message}); looking for it`,
      );
      const text = markerText(marker);
      const found = await patiently(
        () =>
          findJob(context.client, job.router_id, byMarker(text), deadline, {
            signal: context.signal,
            text: `[${text}]`,
          }),
        { deadline, signal: context.signal },
      );
      if (found) return { marker, serviceKey: found.idempotency_key, seen: found };
    }
  }
}

/** A failure after which the service may hold the job although no acknowledgement arrived. */
function mayHaveArrived(error: unknown): boolean {
  if (error instanceof NetworkError || error instanceof TimeoutError)
    return error.requestSent && !(error instanceof TimeoutError && error.phase === "deadline");
  return error instanceof ApiError && error.statusCode >= 500;
}

const byMarker =
  (text: string): JobMatch =>
  (listed) => {
    const marker = parseMarker(listed.description);
    return marker !== undefined && markerText(marker) === text;
  };

/** The job of this attempt in a list: by its id once known, else the service's key, else the marker. */
function matcherOf(attempt: Attempt): JobMatch {
  const text = markerText(attempt.marker);
  const key = attempt.serviceKey.toLowerCase();
  const id = attempt.seen?.id;
  return (listed) =>
    id !== undefined
      ? listed.id === id
      : listed.idempotency_key.toLowerCase() === key || byMarker(text)(listed);
}

/** Waits for the job through the receiver when there is one, else (or when it stays silent) by polling. */
async function confirm(
  job: ApplyJob,
  attempt: Attempt,
  deadline: number,
  context: ApplyContext,
  progress: Progress,
): Promise<SeenJob | undefined> {
  const match = matcherOf(attempt);
  // Every listed form of this attempt (by id, key or marker) carries its marker: the filter the service applies.
  const text = `[${markerText(attempt.marker)}]`;
  const poll = () =>
    pollJob(context.client, {
      routerId: job.router_id,
      match,
      text,
      jobId: attempt.seen?.id ?? attempt.jobId,
      deadline,
      schedule: expressOf(job) ? EXPRESS_SCHEDULE : TICK_SCHEDULE,
      signal: context.signal,
      onUpdate: (seen) => progress.status(seen),
      vanishedIsDeleted: context.client.api === "sdx",
    });
  if (!context.receiver || job.wait_for === "poll") return (await poll()) ?? attempt.seen;
  let last: SeenJob | undefined = attempt.seen;
  while (Date.now() < deadline) {
    // By the job's id once it is known (from the list or a notification): the public service's notifications
    // may carry only job_id and status. Until then by the key the service answered.
    const waited = await context.receiver.waitForJob({
      ...(last?.id ? { jobId: last.id } : { idempotencyKey: attempt.serviceKey }),
      timeoutMs: deadline - Date.now(),
      quietMs: context.receiverQuietMs ?? 30_000,
      signal: context.signal,
    });
    if (waited.job) {
      const heard: SeenJob = { ...waited.job, id: waited.job.job_id };
      progress.status(heard, "(notified)");
      if (waited.outcome === "terminal") return heard;
      last = heard;
    }
    if (waited.outcome === "timeout") return last;
    // The receiver heard nothing for a while: notifications can be lost, so ask the service once.
    progress.line(
      `no notification for ${formatDuration(context.receiverQuietMs ?? 30_000)}; asking the job list`,
    );
    const listed = await findJob(context.client, job.router_id, match, deadline, {
      signal: context.signal,
      text,
      jobId: last?.id,
    }).catch((error: unknown) => {
      if (isTransient(error)) return undefined;
      throw error;
    });
    if (listed) {
      progress.status(listed);
      last = listed;
      if (isTerminal(listed.status)) return listed;
    }
  }
  return last;
}

/** Express unless the job says otherwise (apply-job.ts: the job JSON leaves an undeclared flag out). */
function expressOf(job: ApplyJob): boolean {
  return job.express_execute ?? DEFAULT_EXPRESS_EXECUTE;
}

function label(job: SeenJob): string {
  return job.seq_id === undefined ? job.id : `#${job.seq_id}`;
}

/**
 * Whether the newest jobs of a resource, as listed so far (newest first), already decide its apply, so that
 * older pages need not be read: they hold an attempt at this definition. decide() looks at the newest such
 * attempt (the older ones are behind it), at whether a job of another definition came after it (listed before
 * it, so read), and at the highest attempt number at this definition: each run numbers its attempt past those
 * it listed and lists before it submits, so a later attempt never carries a lower number than an earlier one,
 * and the newest carries the highest. Without such an attempt, only the whole list proves there is none.
 */
function settled(
  found: readonly JobListItem[],
  tags: { resourceTag: string; definitionTag: string },
): boolean {
  return attemptsOf(found, tags.resourceTag).some(
    ({ marker }) => marker.definitionTag === tags.definitionTag,
  );
}

/**
 * The number of the attempt to submit: the one decide() gave (past every attempt listed), or past every attempt
 * at this definition this machine's journal holds, whichever is higher. A job cancelled by an interrupted apply
 * is listed no more (the sites API leaves deleted jobs out), but its marker and idempotency key are spent: a
 * service that honours the key answers a resend with the deleted job, which would then be awaited in vain. A
 * higher number than needed costs nothing: the submission was decided already, and it only makes a new key.
 */
function numberPastJournal(
  decided: number,
  journaled: readonly { readonly marker: string; readonly attempt: number }[],
  tags: { resourceTag: string; definitionTag: string },
): number {
  const prefix = `rj:${tags.resourceTag}-${tags.definitionTag}-`;
  return journaled
    .filter((row) => row.marker.startsWith(prefix))
    .reduce((highest, row) => Math.max(highest, row.attempt + 1), decided);
}

/** The start of every marker of one resource's attempts, as it stands in a description. */
function resourceText(resourceTag: string): string {
  return `[rj:${resourceTag}-`;
}

/** The client's shared budget already holds a rate-limited submission until Retry-After: no pause of our own. */
const AT_ONCE = { firstMs: 0, maxMs: 0 };
