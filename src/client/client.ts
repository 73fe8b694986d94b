import { randomUUID } from "node:crypto";
import { inspect } from "node:util";
import * as z from "zod";
import type { ApiProfileName } from "../contract/api-profile-name.js";
import type { JobAck } from "../contract/envelope.js";
import { describeValue } from "../contract/ids.js";
import { type JobListItem, type JobRequestInput, jobListResponseSchema } from "../contract/job.js";
import type { RouterSummary } from "../contract/router-list.js";
import { type RouterRecord, syncRequestSchema } from "../contract/sync.js";
import { redactToken, tokenFingerprint } from "../contract/token.js";
import { RouterjobsError } from "../errors.js";
import { ApiError, BadResponseError, RateLimitedError, TimeoutError, ValidationError } from "./errors.js";
import { jsonOrUndefined } from "./http/request.js";
import { type ResolvedOptions, type RouterJobsClientOptions, resolveOptions } from "./options.js";
import { pause } from "./patience.js";
import {
  API_PROFILE,
  type ApiProfile,
  type BackupItem,
  backupContentSchema,
  backupListSchema,
  type Exchange,
  jobPageSchema,
  type NextPage,
  oneJobSchema,
} from "./profiles.js";
import { RateBudget } from "./rate-budget.js";
import { errorFromResponse } from "./response-errors.js";
import { backoffMs, type Operation, parseRetryAfter, shouldRetry } from "./retry.js";
import { Transport } from "./transport.js";

/** A bound on one list's pages: far beyond any router's history at any page size, short of forever. */
const MAX_LIST_PAGES = 10_000;

/** Per-call settings; each overrides the client option of the same name. */
export interface CallOptions {
  /** The call's deadline: retries and waiting for the rate budget included. */
  readonly deadlineMs?: number;
  readonly signal?: AbortSignal;
}

export interface FindJobsOptions extends CallOptions {
  /**
   * Whether the matches found so far (newest first) answer the caller: asked after each page, and once it holds
   * no further page is read. For a caller that needs the newest matches only, so that its cost follows how far
   * down the list they are, not the router's whole history. @default read to the list's end
   */
  readonly enough?: (found: readonly JobListItem[]) => boolean;
}

export interface SubmitOptions extends CallOptions {
  /** A lowercase UUID; one is generated when absent. Reuse it to repeat a submission safely. */
  readonly idempotencyKey?: string;
}

export type { RouterRecord };

export interface SubmittedJob {
  readonly ack: JobAck;
  /** The key this call sent (the same on every attempt). */
  readonly idempotencyKey: string;
}

interface CallLimits {
  readonly deadlineMs: number;
  /** Epoch ms by which the call gives up. */
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
}

interface CallSpec<T> extends Exchange<T> {
  readonly operation: Operation;
}

const ROUTER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const IDEMPOTENCY_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEADER_REQUEST_ID = "x-request-id";

/** Until when a 429 without Retry-After holds the key (epoch ms), so that the retry waits at least as long. */
const heldUntil = new WeakMap<RouterjobsError, number>();

/** Client of the router job execution service. See docs/client.md. */
export class RouterJobsClient {
  readonly baseUrl: URL;
  /** The job API this client speaks (`api` option). */
  readonly api: ApiProfileName;
  readonly #token: string;
  readonly #options: ResolvedOptions;
  readonly #profile: ApiProfile;
  readonly #transport: Transport;
  readonly #budget: RateBudget;
  /** Whether the service filters the job list (undefined until it answered one filtered request). */
  #filterOffered: boolean | undefined;
  /** Which of the profile's spellings was routed last, of a job's path (`jobPaths`) and a backup's. */
  readonly #spelling = { job: 0, backup: 0 };

  constructor(options: RouterJobsClientOptions) {
    this.#options = resolveOptions(options);
    this.#token = options.token;
    this.baseUrl = this.#options.baseUrl;
    this.api = this.#options.api;
    this.#profile = API_PROFILE[this.api];
    this.#transport = new Transport(this.#options);
    this.#budget = new RateBudget({
      dir: this.#options.budgetDir,
      key: tokenFingerprint(options.token),
      rateLimit: this.#options.rateLimit,
      onWarning: (message) => this.#options.logger.warn?.(message),
    });
  }

  /**
   * Runs a synchronous command. Never retried: the spec gives it no idempotency. `parameters` is one string of
   * API words in both profiles; the records come back with the spec's keys, every value a string.
   */
  async execute(routerId: string, command: string, parameters?: string, options: CallOptions = {}) {
    const body = validate(
      syncRequestSchema,
      parameters === undefined ? { command } : { command, parameters },
    );
    const exchange = this.#profile.command(routerPath(routerId), body);
    return this.#call<RouterRecord[]>({ operation: "execute", ...exchange }, options);
  }

  /**
   * Submits a job. Retried with the same idempotency key, and only when the service cannot have acted, or
   * (`sdx`, whose API honours the key) when a resend is answered with the job already made.
   */
  async submitJob(
    routerId: string,
    request: JobRequestInput,
    options: SubmitOptions = {},
  ): Promise<SubmittedJob> {
    const body = validate(this.#profile.jobRequest, request);
    const idempotencyKey = options.idempotencyKey ?? randomUUID();
    if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new ValidationError([
        {
          field: "idempotencyKey",
          message: `idempotencyKey must be a lowercase UUID (got ${describeValue(idempotencyKey)})`,
        },
      ]);
    }
    const exchange = this.#profile.submit(routerPath(routerId), body, idempotencyKey);
    const ack = await this.#call<JobAck>({ operation: "submit", ...exchange }, options);
    return { ack, idempotencyKey };
  }

  /**
   * The jobs of a router, newest first (as the service orders them). Retried on transient failures. The answer
   * may be the envelope or a bare array; a job without `status` gets one from its timestamps.
   */
  async listJobs(routerId: string, options: CallOptions = {}): Promise<JobListItem[]> {
    return this.#readList(routerId, options, (jobs) => jobs, undefined);
  }

  /**
   * The list page by page, newest first, keeping what `keep` keeps of each page. Once `enough` holds for what
   * was kept, no further page is asked for: the answer is then what the pages read so far held.
   */
  async #readList(
    routerId: string,
    options: CallOptions,
    keep: (jobs: JobListItem[]) => JobListItem[],
    enough: ((found: readonly JobListItem[]) => boolean) | undefined,
  ): Promise<JobListItem[]> {
    const { request } = this.#profile.list(routerPath(routerId));
    const jobs: JobListItem[] = [];
    const asked = new Set<string>();
    for (let path = request.path; ; ) {
      asked.add(path);
      const page = await this.#call<{ jobs: JobListItem[]; next: NextPage }>(
        { operation: "list", request: { ...request, path }, schema: jobPageSchema },
        options,
      );
      jobs.push(...keep(page.jobs));
      // A page with nothing on it ends the list whatever it offers: a service cannot page on forever so.
      if (page.next === undefined || page.jobs.length === 0 || enough?.(jobs)) return jobs;
      const next = this.#nextPagePath(request.path, page.next);
      if (asked.has(next) || asked.size >= MAX_LIST_PAGES) {
        throw new BadResponseError({
          statusCode: 200,
          message: asked.has(next)
            ? `the job list's page ${asked.size} points back at a page already read (${next}): not followed`
            : `the job list ran past ${MAX_LIST_PAGES} pages: not followed further`,
        });
      }
      path = next;
    }
  }

  /**
   * The path of a list's next page: a cursor on the list's own path, or a link, which must be on this service
   * (the token goes with the request: a link elsewhere is not followed).
   */
  #nextPagePath(listPath: string, next: NonNullable<NextPage>): string {
    if ("cursor" in next) return `${listPath}?${new URLSearchParams({ cursor: next.cursor })}`;
    let url: URL;
    try {
      url = new URL(next.url, this.baseUrl);
    } catch {
      throw new BadResponseError({
        statusCode: 200,
        message: `the job list's next link is not a URL (${describeValue(next.url)})`,
      });
    }
    const basePath = this.baseUrl.pathname.replace(/\/$/, "");
    if (url.origin !== this.baseUrl.origin || !url.pathname.startsWith(`${basePath}/`)) {
      throw new BadResponseError({
        statusCode: 200,
        message: `the job list's next page is not on this service (${url.origin}${url.pathname}): not followed, the token would go with it`,
      });
    }
    return `${url.pathname.slice(basePath.length)}${url.search}`;
  }

  /**
   * The router's jobs whose description contains `text` (case-insensitive), newest first. Our service filters
   * and pages (`text`, `limit`, `cursor`: an extension, docs/client.md), so the cost follows the matches, not
   * the router's history. A service that ignores those parameters answers the whole list (no `next_cursor`),
   * one that refuses them answers 400: then this client asks for the plain list from then on and filters it
   * itself. The sites API (`sdx`) documents no filter, so it always gets the plain list.
   *
   * With `enough`, the list (newest first) is read only as far as the caller needs: once `enough` holds for
   * the matches so far, no further page is asked for (a paged list, as the sites API's may be).
   */
  async findJobs(routerId: string, text: string, options: FindJobsOptions = {}): Promise<JobListItem[]> {
    const needle = text.toLowerCase();
    const matching = (jobs: readonly JobListItem[]) =>
      jobs.filter((job) => job.description.toLowerCase().includes(needle));
    const { enough } = options;
    const plainList = () => this.#readList(routerId, options, matching, enough);
    if (this.api !== "spec" || this.#filterOffered === false || text.length === 0 || text.length > 100)
      return plainList();
    const path = routerPath(routerId);
    const found: JobListItem[] = [];
    let cursor: string | undefined;
    do {
      const query = new URLSearchParams({ text, limit: String(FILTERED_PAGE) });
      if (cursor !== undefined) query.set("cursor", cursor);
      const { request } = this.#profile.list(path);
      let page: FilteredPage;
      try {
        page = await this.#call<FilteredPage>(
          {
            operation: "list",
            request: { ...request, path: `${request.path}?${query}` },
            schema: pageSchema,
          },
          options,
        );
      } catch (error) {
        if (!(cursor === undefined && refusesQuery(error))) throw error;
        // The plain list answers what the service really thinks (a router it does not know stays a 404).
        const all = await plainList();
        this.#filterOffered = false;
        return all;
      }
      if (!page.paged) this.#filterOffered = false;
      const kept = matching(page.jobs);
      // Paged but not filtered (a service that pages and ignores `text`): the plain list is one request.
      if (page.paged && kept.length < page.jobs.length) {
        this.#filterOffered = false;
        return plainList();
      }
      found.push(...kept);
      if (enough?.(found)) return found;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return found;
  }

  /** Whether this API reads one job by id and cancels one (`getJob`, `cancelJob`): the sites API (`sdx`). */
  get offersOneJob(): boolean {
    return this.#profile.jobPaths !== undefined;
  }

  /**
   * One job by its id, as the list shows it (with a `status`). Its cost does not grow with the router's
   * history, as the list's does. An unknown or deleted job is an `ApiError` 404. Retried as a read.
   */
  async getJob(routerId: string, jobId: string, options: CallOptions = {}): Promise<JobListItem> {
    return this.#oneJob<JobListItem>("GET", routerId, jobId, oneJobSchema, "list", options);
  }

  /**
   * Cancels a job that has not started. A job that started, completed or failed is an `ApiError` whose
   * `apiCode` is `job_already_started` (`JOB_ALREADY_STARTED`); an unknown or deleted one a 404. Repeated only
   * when the request provably never reached the service: after one that did, a repeat would answer 404.
   */
  async cancelJob(routerId: string, jobId: string, options: CallOptions = {}): Promise<void> {
    await this.#oneJob<unknown>("DELETE", routerId, jobId, anyBody, "cancel", options);
  }

  /**
   * A call on one job, through the profile's spellings of its path: the one that answered last first, then the
   * others while a spelling is answered 404 or 405 (not routed, or no such job: only the last spelling tells).
   */
  async #oneJob<T>(
    method: "GET" | "DELETE",
    routerId: string,
    jobId: string,
    schema: z.ZodType<{ data: T }>,
    operation: Operation,
    options: CallOptions,
  ): Promise<T> {
    const paths = this.#profile.jobPaths?.(routerPath(routerId), jobPath(jobId));
    if (!paths) {
      throw new ValidationError(
        [{ field: "api", message: `the ${this.api} API has no single-job read or cancel; use --api sdx` }],
        "call",
      );
    }
    return this.#firstRouted<T>("job", paths, { method, schema, operation }, options);
  }

  /** Whether this API keeps and lists backups of its own (`listBackups`, `getBackup`): the sites API (`sdx`). */
  get offersBackups(): boolean {
    return this.#profile.backupPaths !== undefined;
  }

  /**
   * The router's backups as the service keeps them, newest first: each `filename` is what `getBackup` takes
   * (the part of a job's `associated_backup` after the `/`). Retried as a read.
   */
  async listBackups(routerId: string, options: CallOptions = {}): Promise<BackupItem[]> {
    const paths = this.#backupPaths(routerId, undefined);
    return this.#firstRouted<BackupItem[]>(
      "backup",
      paths,
      { method: "GET", schema: backupListSchema, operation: "list" },
      options,
    );
  }

  /** One backup's export text. An unknown file is an `ApiError` 404. Retried as a read. */
  async getBackup(routerId: string, filename: string, options: CallOptions = {}): Promise<string> {
    const paths = this.#backupPaths(routerId, filename);
    return this.#firstRouted<string>(
      "backup",
      paths,
      { method: "GET", schema: backupContentSchema, operation: "list" },
      options,
    );
  }

  #backupPaths(routerId: string, filename: string | undefined): readonly string[] {
    if (filename !== undefined && (filename.length === 0 || /[/\\]/.test(filename))) {
      throw new ValidationError([
        {
          field: "filename",
          message: `filename must be a backup's file name, as listBackups shows it (got ${describeValue(filename)})`,
        },
      ]);
    }
    const paths = this.#profile.backupPaths?.(
      routerPath(routerId),
      filename === undefined ? undefined : encodeURIComponent(filename),
    );
    if (!paths) {
      throw new ValidationError(
        [
          {
            field: "api",
            message: `the ${this.api} API keeps no backups of its own (a job's backup stays on the router); use --api sdx`,
          },
        ],
        "call",
      );
    }
    return paths;
  }

  /**
   * A call through the profile's spellings of a path: the one that answered last first, then the others while
   * a spelling is answered 404 or 405 (not routed, or no such thing: only the last spelling tells).
   */
  async #firstRouted<T>(
    slot: "job" | "backup",
    paths: readonly string[],
    call: { method: "GET" | "DELETE"; schema: z.ZodType<{ data: T }>; operation: Operation },
    options: CallOptions,
  ): Promise<T> {
    const from = this.#spelling[slot];
    const order = [...paths.slice(from), ...paths.slice(0, from)];
    for (const [index, path] of order.entries()) {
      try {
        const answer = await this.#call<T>(
          {
            operation: call.operation,
            request: { method: call.method, path, headers: {} },
            schema: call.schema,
          },
          options,
        );
        this.#spelling[slot] = paths.indexOf(path);
        return answer;
      } catch (error) {
        const unrouted = error instanceof ApiError && [404, 405].includes(error.statusCode);
        if (!unrouted || index === order.length - 1) {
          if (!unrouted) this.#spelling[slot] = paths.indexOf(path);
          throw error;
        }
      }
    }
    throw new Error("unreachable: a profile's spellings are never empty");
  }

  /**
   * The routers the token can see (id, name), or undefined when this service has no such list: our service
   * answers `GET /api/routers` (an extension); the public service documents none, in either API.
   */
  async listRouters(options: CallOptions = {}): Promise<RouterSummary[] | undefined> {
    const exchange = this.#profile.routers?.();
    if (!exchange) return undefined;
    try {
      return await this.#call<RouterSummary[]>({ operation: "list", ...exchange }, options);
    } catch (error) {
      if (error instanceof ApiError && (error.statusCode === 404 || error.statusCode === 405))
        return undefined;
      throw error;
    }
  }

  /**
   * The routers' names by id, so that a message names a router as people do: one request. A service without
   * the list (the public one), or one that refuses it, gives an empty map, and the message keeps the id.
   */
  async routerNames(options: CallOptions = {}): Promise<Map<string, string>> {
    try {
      return new Map((await this.listRouters(options))?.map((router) => [router.id, router.name]) ?? []);
    } catch (error) {
      if (error instanceof RouterjobsError) return new Map();
      throw error;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#transport.close(), this.#budget.flush()]);
  }

  toJSON(): Record<string, string> {
    return { baseUrl: this.baseUrl.href, api: this.api, token: redactToken(this.#token) };
  }

  [inspect.custom](): string {
    return `RouterJobsClient { baseUrl: '${this.baseUrl.href}', api: '${this.api}', token: '${redactToken(this.#token)}' }`;
  }

  async #call<T>(spec: CallSpec<T>, options: CallOptions): Promise<T> {
    const deadlineMs = options.deadlineMs ?? this.#options.deadlineMs;
    const call: CallLimits = { deadlineMs, deadline: Date.now() + deadlineMs, signal: options.signal };
    const { retry, logger } = this.#options;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#attempt(spec, call);
      } catch (error) {
        if (
          !(error instanceof RouterjobsError) ||
          (error instanceof TimeoutError && error.phase === "budget")
        )
          throw error;
        const retryAfterMs = (error as { retryAfterMs?: number }).retryAfterMs;
        const keyHonoured = spec.operation === "submit" && this.#profile.honoursIdempotencyKey;
        if (
          !shouldRetry({
            operation: spec.operation,
            attempt,
            maxAttempts: retry.maxAttempts,
            error,
            keyHonoured,
          })
        )
          throw error;
        const holdMs = (heldUntil.get(error) ?? 0) - Date.now();
        const waitMs = Math.max(backoffMs(attempt, retryAfterMs, retry), holdMs);
        if (Date.now() + waitMs >= call.deadline) throw error;
        logger.debug?.(`retrying ${spec.operation} after ${error.code}`, { attempt, waitMs });
        await pause(waitMs, options.signal);
      }
    }
  }

  /** One attempt: a permit from the shared budget, the request, and the permit back with what it cost. */
  async #attempt<T>(spec: CallSpec<T>, { deadline, deadlineMs, signal }: CallLimits): Promise<T> {
    const permit = await this.#budget.acquire(deadline, signal);
    let counted = true;
    const remaining = deadline - Date.now();
    const deadlineSignal = AbortSignal.timeout(Math.max(1, remaining));
    try {
      const response = await this.#transport.send({
        ...spec.request,
        headers: { ...this.#headers(spec.request.body !== undefined), ...spec.request.headers },
        timeoutMs: Math.max(1, Math.min(this.#options.requestTimeoutMs, remaining)),
        signal: signal ? AbortSignal.any([signal, deadlineSignal]) : deadlineSignal,
      });
      const requestId = header(response.headers, HEADER_REQUEST_ID);
      if (response.statusCode < 200 || response.statusCode > 299) {
        const retryAfterMs = parseRetryAfter(
          header(response.headers, "retry-after"),
          header(response.headers, "date"),
        );
        const error = errorFromResponse({
          statusCode: response.statusCode,
          text: response.text,
          requestId,
          retryAfterMs,
        });
        if (error instanceof RateLimitedError) {
          // The contract does not count a 429; everyone sharing the key waits as long as the service asked,
          // or, when it did not say, until the local window frees a slot.
          counted = false;
          if (retryAfterMs !== undefined) await this.#budget.block(Date.now() + retryAfterMs);
          else heldUntil.set(error, await this.#budget.blockUntilWindowFrees());
        }
        throw error;
      }
      return parseSuccess(spec.schema, response.statusCode, response.text, requestId);
    } catch (error) {
      if (error instanceof RouterjobsError) throw error;
      if (signal?.aborted) throw signal.reason;
      if (deadlineSignal.aborted) {
        throw new TimeoutError(`the call did not complete within its deadline of ${deadlineMs} ms`, {
          phase: "deadline",
          requestSent: true,
          cause: error,
        });
      }
      throw this.#transport.describeFailure(error);
    } finally {
      await permit.release({ counted });
    }
  }

  /** A request without a body says no type: a JSON type with an empty body is a 400 at a JSON parser. */
  #headers(withBody: boolean): Record<string, string> {
    return {
      authorization: `Bearer ${this.#token}`,
      ...(withBody ? { "content-type": "application/json" } : {}),
      accept: "application/json",
      "user-agent": this.#options.userAgent,
    };
  }
}

/** Jobs per filtered page: a marker matches a handful of jobs, so one page nearly always holds them all. */
const FILTERED_PAGE = 100;

interface FilteredPage {
  readonly jobs: JobListItem[];
  readonly nextCursor: string | undefined;
  /** False when the answer had no `next_cursor`: the service ignored the query and sent every job. */
  readonly paged: boolean;
}

/** A page of our service's filtered list, or the whole list of a service that ignored the query. */
const pageSchema = jobListResponseSchema.transform((body) => {
  const next = (body as { next_cursor?: unknown }).next_cursor;
  return {
    data: {
      jobs: body.data,
      nextCursor: typeof next === "string" ? next : undefined,
      paged: typeof next === "string" || next === null,
    },
  };
}) as unknown as z.ZodType<{ data: FilteredPage }>;

/**
 * An answer a service may give to a query it does not know: refused as invalid (400, 422), or its route not
 * matched at all (404, 405). The plain list then tells which it was.
 */
function refusesQuery(error: unknown): boolean {
  return error instanceof ApiError && [400, 404, 405, 422].includes(error.statusCode);
}

function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => ({
      field: issue.path.join(".") || "request",
      message: issue.message,
    })),
  );
}

/** Any answer, for a call whose body says nothing the caller needs (a cancel: 200 with the job, or 204). */
const anyBody = z.unknown().transform((body) => ({ data: body })) as z.ZodType<{ data: unknown }>;

function jobPath(jobId: string): string {
  if (typeof jobId !== "string" || !ROUTER_ID.test(jobId)) {
    throw new ValidationError([
      { field: "jobId", message: `jobId must be a UUID (got ${describeValue(jobId)})` },
    ]);
  }
  return jobId;
}

function routerPath(routerId: string): string {
  if (typeof routerId !== "string" || !ROUTER_ID.test(routerId)) {
    throw new ValidationError([
      { field: "routerId", message: `routerId must be a UUID (got ${describeValue(routerId)})` },
    ]);
  }
  // A UUID names the same router in any case; the services' paths take it in lowercase.
  return routerId.toLowerCase();
}

function parseSuccess<T>(
  schema: z.ZodType<{ data: T }>,
  statusCode: number,
  text: string,
  requestId: string | undefined,
): T {
  // A 204 has no body: its schema decides whether nothing is an answer (a cancel's is).
  const json = statusCode === 204 && text === "" ? null : jsonOrUndefined(text);
  const parsed = json === undefined ? undefined : schema.safeParse(json);
  if (parsed?.success) return parsed.data.data;
  const issue = parsed?.error.issues[0];
  const what = issue
    ? `an unexpected body (${issue.path.join(".") || "body"}: ${issue.message})`
    : "a body that is not JSON";
  throw new BadResponseError({
    statusCode,
    message: `the service answered HTTP ${statusCode} with ${what}`,
    requestId,
    raw: text.slice(0, 2000),
  });
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
