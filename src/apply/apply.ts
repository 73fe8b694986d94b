import type { RouterJobsClient } from "../client/client.js";
import { RateLimitedError } from "../client/errors.js";
import { type ApplyJob, idempotencyKey } from "../contract/apply-job.js";
import { formatDuration } from "../contract/duration.js";
import { isTerminal, type JobStatus } from "../contract/job.js";
import type { ReceiverClient } from "../receiver/wait-client.js";
import { failureReason } from "./failure-reason.js";
import type { AttemptRecord, Journal } from "./journal.js";
import { findJob, isPassing, pollJob } from "./poll.js";
import { Progress } from "./progress.js";

/**
 * `routerjobs apply`: submit one declared job with its backup and confirm it, exactly once.
 *
 * Exactly once rests on three things. The idempotency key of an attempt is derived from the job definition
 * (`job_key`), Terraform's resource instance and the attempt number, and is written to the local journal
 * before anything is sent. A re-run after a crash or a killed `terraform apply` finds that attempt in the
 * journal and asks the job list whether the service has it before sending anything again (and sends the same
 * key when it does, so the service's idempotency covers a lost acknowledgement). Retried requests reuse the
 * key inside the client. A new resource instance (a replacement, a taint, a revert to an earlier script) or a
 * failed attempt makes a new attempt with a new key: that re-run is what Terraform asked for.
 */
export interface ApplyContext {
  readonly client: RouterJobsClient;
  readonly journal: Journal;
  /** Terraform's id of the resource instance (`self.id`); "manual" when run by hand. */
  readonly instanceId: string;
  /** Set when notifications can be awaited through a receiver. */
  readonly receiver?: ReceiverClient | undefined;
  /** The receiver's `notify_url` (holds its path secret, so it comes from the environment, never from synth). */
  readonly notifyUrl?: string | undefined;
  /** Run the job again although this resource instance already completed it. */
  readonly force?: boolean;
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

const IN_FLIGHT: ReadonlySet<AttemptRecord["status"]> = new Set([
  "submitting",
  "pending",
  "loaded",
  "running",
  "unknown",
]);

export async function applyJob(job: ApplyJob, context: ApplyContext): Promise<ApplyResult> {
  const deadline = Date.now() + job.timeout_ms;
  const progress = new Progress(job.resource, context.write);
  const identity = { jobKey: job.job_key, resource: job.resource, routerId: job.router_id };
  const last = (await context.journal.read(job.job_key))?.attempts.at(-1);

  if (last?.status === "completed" && last.instanceId === context.instanceId && !context.force) {
    progress.line(`already applied by job ${last.jobId ?? "?"} at ${last.finishedAt ?? "?"}; nothing to do`);
    return { outcome: "completed", job: undefined, alreadyApplied: true };
  }
  const resuming = last !== undefined && IN_FLIGHT.has(last.status);
  const attempt = resuming ? last.attempt : (last?.attempt ?? 0) + 1;
  const key = resuming
    ? last.idempotencyKey
    : idempotencyKey(job.job_key, `${context.instanceId}:${attempt}`);
  const journal = (seen: { status: AttemptRecord["status"] } & Partial<Omit<SeenJob, "status">>) =>
    record(context.journal, identity, { attempt, key, instanceId: context.instanceId }, seen);

  const found = resuming
    ? await findJob(context.client, job.router_id, key, deadline, context.signal)
    : undefined;
  if (found) {
    progress.line(`resuming attempt ${attempt}: the service already has job ${found.id} (${found.status})`);
    await journal(found);
  } else {
    await journal({ status: "submitting" });
    const notifyUrl = job.notify_url ?? (context.receiver ? context.notifyUrl : undefined);
    const { ack } = await submitPatiently(
      () =>
        context.client.submitJob(
          job.router_id,
          {
            description: job.description,
            script: job.script,
            make_backup: job.make_backup,
            express_execute: job.express_execute,
            needs_acknowledgement: job.needs_acknowledgement,
            ...(notifyUrl ? { notify_url: notifyUrl } : {}),
          },
          { idempotencyKey: key, deadlineMs: Math.max(1, deadline - Date.now()), signal: context.signal },
        ),
      deadline,
    );
    progress.line(
      `submitted${job.make_backup ? " with a backup" : ""} (request ${ack.request_id}, attempt ${attempt})`,
    );
    await journal({ status: "pending" });
  }

  const final =
    found && isTerminal(found.status) ? found : await confirm(job, key, deadline, context, progress);
  if (final) await journal(final);
  if (!final || !isTerminal(final.status)) {
    progress.line(
      `not finished after ${formatDuration(job.timeout_ms)}: job ${final ? `${final.id} is ${final.status}` : "not yet listed"}` +
        " (is the router offline?); the next apply resumes waiting for the same job",
    );
    return { outcome: "timeout", job: final };
  }
  if (final.status === "completed")
    return { outcome: "completed", job: final, alreadyApplied: found !== undefined };
  const reason = await failureReason(context.client, job.router_id, final, deadline);
  progress.line(`job ${final.id} ${final.status}: ${reason}`);
  return { outcome: final.status === "deleted" ? "deleted" : "failed", job: final, reason };
}

/** Waits for the job through the receiver when there is one, else (or when it stays silent) by polling. */
async function confirm(
  job: ApplyJob,
  key: string,
  deadline: number,
  context: ApplyContext,
  progress: Progress,
): Promise<SeenJob | undefined> {
  const poll = () =>
    pollJob(context.client, {
      routerId: job.router_id,
      idempotencyKey: key,
      deadline,
      firstDelayMs: job.express_execute ? 500 : 1000,
      signal: context.signal,
      onUpdate: (seen) => progress.status(seen),
    });
  if (!context.receiver || job.wait_for === "poll") return poll();
  let last: SeenJob | undefined;
  while (Date.now() < deadline) {
    const waited = await context.receiver.waitForJob({
      idempotencyKey: key,
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
    const listed = await findJob(context.client, job.router_id, key, deadline, context.signal).catch(
      (error: unknown) => {
        if (isPassing(error)) return undefined;
        throw error;
      },
    );
    if (listed) {
      progress.status(listed);
      last = listed;
      if (isTerminal(listed.status)) return listed;
    }
  }
  return last;
}

async function record(
  journal: Journal,
  identity: Parameters<Journal["update"]>[0],
  attempt: { attempt: number; key: string; instanceId: string },
  seen: { status: AttemptRecord["status"] } & Partial<Omit<SeenJob, "status">>,
): Promise<void> {
  await journal.update(identity, (entry) => {
    let row = entry.attempts.find((a) => a.attempt === attempt.attempt);
    if (!row) {
      row = {
        attempt: attempt.attempt,
        idempotencyKey: attempt.key,
        instanceId: attempt.instanceId,
        submittedAt: new Date().toISOString(),
        status: seen.status,
      };
      entry.attempts.push(row);
    }
    row.status = seen.status;
    if (seen.id) row.jobId = seen.id;
    if (seen.error) row.error = seen.error;
    if (seen.status !== "submitting" && isTerminal(seen.status)) row.finishedAt = new Date().toISOString();
    entry.attempts.sort((a, b) => a.attempt - b.attempt);
  });
}

/**
 * A 429 means the service did not take the submission, and the key makes a repeat safe: so a deploy sharing
 * its key with a busy neighbour waits (the client's shared budget holds every process until Retry-After)
 * instead of failing, until its own timeout.
 */
async function submitPatiently<T>(submit: () => Promise<T>, deadline: number): Promise<T> {
  for (;;) {
    try {
      return await submit();
    } catch (error) {
      if (!(error instanceof RateLimitedError) || Date.now() >= deadline) throw error;
    }
  }
}
