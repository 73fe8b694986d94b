import type * as z from "zod";
import { HttpOrigin, jsonOrUndefined } from "../../client/http/request.js";
import { isTransient, pause, Schedule } from "../../client/patience.js";
import { readErrorResponse } from "../../client/response-errors.js";
import { isTerminal } from "../../contract/job.js";
import { UsageError } from "../../errors.js";
import { ReceiverAuthError, ReceiverRequestError } from "./errors.js";
import { type ReceivedJob, receivedJobEnvelopeSchema, receivedJobListEnvelopeSchema } from "./job-view.js";
import { MAX_WAIT_MS } from "./wait-routes.js";

export interface ReceiverClientOptions {
  /** Base URL of the receiver, like `https://127.0.0.1:8444`. */
  readonly url: string;
  readonly readerToken: string;
  /** PEM of the CA to trust (the receiver's generated `tls-ca.pem`). @default the system's CAs */
  readonly ca?: string;
  /** Length of each long poll. @default 30_000 */
  readonly longPollMs?: number;
  /**
   * Bound of the first pause after a failed attempt (receiver restarting, network) before the next; later
   * pauses double up to 8 times this, each a random part of its bound (full jitter), so that the waiters of a
   * restarting receiver do not all come back at once. @default 1000
   */
  readonly retryDelayMs?: number;
  /** Milliseconds from any origin, for the wait's deadlines; a test moves it instead of waiting. @default performance.now */
  readonly now?: () => number;
}

export interface WaitForJobOptions {
  /** The job's idempotency key; give this or `jobId`. */
  readonly idempotencyKey?: string;
  /**
   * The job's id: the only name a minimal notification (job_id and status, all the public service documents)
   * carries. Give this or `idempotencyKey`.
   */
  readonly jobId?: string;
  /** Overall deadline of the wait. */
  readonly timeoutMs: number;
  /**
   * Give up early with outcome "quiet" when no new notification for the job arrived for this long, so the
   * caller can fall back to asking the service. @default timeoutMs (never quiet before the deadline)
   */
  readonly quietMs?: number;
  readonly signal?: AbortSignal;
}

export interface WaitResult {
  readonly outcome: "terminal" | "timeout" | "quiet";
  /** What the receiver knows of the job; undefined when it heard nothing. */
  readonly job: ReceivedJob | undefined;
  /** When the receiver last stored a notification for the job (the receiver's clock). */
  readonly lastHeardAt: Date | undefined;
  /** The last failure talking to the receiver during the wait, to tell "receiver down" from "nothing sent". */
  readonly lastError: Error | undefined;
}

/** A long poll's answer may come this long after the wait it asked for (the receiver's own work, the network). */
const LONG_POLL_GRACE_MS = 10_000;
/** The longest of the other calls (a job's state, the recent jobs). */
const READ_TIMEOUT_MS = 30_000;

/** The waiter side of the receiver, used by `routerjobs apply` and `receiver status`. */
export class ReceiverClient {
  private readonly http: HttpOrigin;

  constructor(private readonly options: ReceiverClientOptions) {
    const url = new URL(options.url);
    if (url.protocol !== "https:") throw new UsageError(`url must be an https: URL (got ${options.url})`);
    if (options.longPollMs !== undefined && !(options.longPollMs > 0 && options.longPollMs <= MAX_WAIT_MS)) {
      throw new UsageError(`longPollMs must be between 1 and ${MAX_WAIT_MS} (got ${options.longPollMs})`);
    }
    this.http = new HttpOrigin({
      baseUrl: new URL(url.origin),
      peerName: "the receiver",
      peerSettings: { url: "ROUTERJOBS_RECEIVER_URL", ca: "ROUTERJOBS_RECEIVER_CA_FILE" },
      ca: options.ca,
      bearerToken: options.readerToken,
      responseTimeoutMs: READ_TIMEOUT_MS,
    });
  }

  /** The job's current state, or undefined when the receiver heard nothing of it. */
  async getJob(idempotencyKey: string, signal?: AbortSignal): Promise<ReceivedJob | undefined> {
    return this.fetchJob(new URLSearchParams({ idempotency_key: idempotencyKey }), signal);
  }

  async recentJobs(
    options: { routerId?: string; limit?: number; signal?: AbortSignal } = {},
  ): Promise<ReceivedJob[]> {
    const query = new URLSearchParams({ limit: String(options.limit ?? 20) });
    if (options.routerId) query.set("router_id", options.routerId);
    const { statusCode, body } = await this.get(query, options.signal);
    return parse(receivedJobListEnvelopeSchema, statusCode, body).data;
  }

  /** The job's current state by its id, or undefined when the receiver heard nothing of it. */
  async getJobById(jobId: string, signal?: AbortSignal): Promise<ReceivedJob | undefined> {
    return this.fetchJob(new URLSearchParams({ job_id: jobId }), signal);
  }

  /** Long-polls until the job is terminal, the deadline passes, or the receiver stays quiet for `quietMs`. */
  async waitForJob(options: WaitForJobOptions): Promise<WaitResult> {
    const name = jobQuery(options);
    const clock = this.options.now ?? (() => performance.now());
    const started = clock();
    const deadline = started + options.timeoutMs;
    const quietMs = options.quietMs ?? options.timeoutMs;
    const longPollMs = this.options.longPollMs ?? 30_000;
    let job: ReceivedJob | undefined;
    let lastError: Error | undefined;
    let lastNewsAt = started;
    const baseMs = this.options.retryDelayMs ?? 1000;
    const retries = new Schedule({ firstMs: baseMs, maxMs: baseMs * 8, jitter: true });
    const result = (outcome: WaitResult["outcome"]): WaitResult => ({
      outcome,
      job,
      lastHeardAt: job ? new Date(job.last_heard_at) : undefined,
      lastError,
    });
    for (;;) {
      options.signal?.throwIfAborted();
      const now = clock();
      if (now >= deadline) return result("timeout");
      if (now - lastNewsAt >= quietMs) return result("quiet");
      const waitMs = Math.ceil(Math.min(longPollMs, deadline - now, lastNewsAt + quietMs - now));
      const query = new URLSearchParams({ ...name, wait: `${waitMs}ms` });
      try {
        const next = await this.fetchJob(query, options.signal, waitMs + LONG_POLL_GRACE_MS);
        retries.restart();
        if (next && next.last_heard_at !== job?.last_heard_at) lastNewsAt = clock();
        job = next ?? job;
        if (job && isTerminal(job.status)) return result("terminal");
      } catch (error) {
        // Only what a wait can outlast is retried: the network, a hung or restarting receiver (5xx). A refused
        // token or a refused query would fail the same way on every attempt.
        const transient =
          isTransient(error) || (error instanceof ReceiverRequestError && (error.statusCode ?? 500) >= 500);
        if (!transient || options.signal?.aborted) throw error;
        lastError = error as Error;
        const pauseMs = Math.min(retries.next(), deadline - clock());
        if (pauseMs > 0) await pause(pauseMs, options.signal);
      }
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private async fetchJob(
    query: URLSearchParams,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<ReceivedJob | undefined> {
    const { statusCode, body } = await this.get(query, signal, timeoutMs);
    if (statusCode === 404) return undefined;
    return parse(receivedJobEnvelopeSchema, statusCode, body).data;
  }

  private async get(
    query: URLSearchParams,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<{ statusCode: number; body: string }> {
    const response = await this.http.send({
      method: "GET",
      path: `/v1/jobs?${query}`,
      headers: { accept: "application/json" },
      timeoutMs,
      signal,
    });
    return { statusCode: response.statusCode, body: response.text };
  }
}

function jobQuery(options: WaitForJobOptions): Record<string, string> {
  if ((options.idempotencyKey === undefined) === (options.jobId === undefined))
    throw new UsageError("waitForJob needs exactly one of idempotencyKey and jobId");
  return options.idempotencyKey !== undefined
    ? { idempotency_key: options.idempotencyKey }
    : { job_id: options.jobId as string };
}

function parse<T extends z.ZodType>(schema: T, statusCode: number, body: string): z.output<T> {
  const json = jsonOrUndefined(body);
  if (statusCode >= 200 && statusCode < 300) {
    const parsed = schema.safeParse(json);
    if (parsed.success) return parsed.data;
    throw new ReceiverRequestError(
      `the receiver's answer is not a job state (HTTP ${statusCode})`,
      statusCode,
    );
  }
  const { message } = readErrorResponse(statusCode, body, "the receiver");
  if (statusCode === 401)
    throw new ReceiverAuthError(`the receiver refused the reader token: ${message}`, 401);
  throw new ReceiverRequestError(`the receiver refused: ${message}`, statusCode);
}
