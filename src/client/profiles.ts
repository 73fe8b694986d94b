/**
 * The two generations of the job API (docs/public-service.md), and the one place that knows each one's paths
 * and request and answer shapes. A profile turns a validated call into a request and reads its answer into the
 * client's types (`JobAck`, `JobListItem[]`, records with the spec's keys), so that callers see the same shapes
 * whichever API answers. Budget, retries and error mapping stay in the client, the same for both.
 *
 * - `spec`: `POST /api/asynchronous/{id}` (JSON), `POST /api/synchronous/{id}`, `GET /api/routers/{id}/jobs`,
 *   and our service's `GET /api/routers` (an extension).
 * - `sdx`: the sites API. `POST /sites/{id}/jobs` with the script as `text/plain` and its metadata in `X-`
 *   headers, answered by a bare job; `GET /sites/{id}/jobs`, a bare array without `status`;
 *   `POST /sites/{id}/commands/synchronous` with `parameters` as an array of API words, answered by raw
 *   RouterOS records (RouterOS keys, typed values); one job `GET /sites/{id}/jobs/{jobId}` and its cancel
 *   `DELETE` on the same path (or `/site/{id}/job/{jobId}`, the v1 host's spelling). It documents no list of
 *   sites (docs/public-service.md).
 */
import * as z from "zod";
import type { ApiProfileName } from "../contract/api-profile-name.js";
import { successEnvelope } from "../contract/envelope.js";
import { tolerantUuidSchema } from "../contract/ids.js";
import {
  type JobAck,
  type JobListItem,
  jobListItemSchema,
  jobListResponseSchema,
  jobRequestSchemaFor,
  type ProfileJobRequest,
} from "../contract/job.js";
import { type RouterSummary, routerListEnvelopeSchema } from "../contract/router-list.js";
import { splitWords, toServiceRecord } from "../contract/routers/sync-view.js";
import { type RouterRecord, type SyncRequest, tolerantRouterRecordSchema } from "../contract/sync.js";
import { ValidationError } from "./errors.js";
import { sdxDescriptionProblem, sdxNotifyUrlProblem, utf8HeaderValue } from "./sdx-headers.js";
import type { AttemptRequest } from "./transport.js";

export type ProfileRequest = Omit<AttemptRequest, "timeoutMs" | "signal">;

/** One call as a profile shapes it: the request to send and the schema that reads a 2xx answer. */
export interface Exchange<T> {
  readonly request: ProfileRequest;
  readonly schema: z.ZodType<{ data: T }>;
}

export interface ApiProfile {
  readonly name: ApiProfileName;
  /**
   * Whether the API documents that it honours the submission's idempotency key: then a submission that may have
   * reached the service is resent with the same key as safely as a read. The spec's API at the public service
   * documents no such header, so there a resend could run the job twice.
   */
  readonly honoursIdempotencyKey: boolean;
  /**
   * A submission as this API takes it: the spec's fields, the script within the API's own lengths
   * (`SCRIPT_CHARS`: the spec's 1 to 2,000, the sites API's 3 to 10,000). What `submit` is given.
   */
  readonly jobRequest: ReturnType<typeof jobRequestSchemaFor>;
  /** `job` is already valid by the spec's rules; a profile may refuse what its API cannot carry. */
  submit(routerId: string, job: ProfileJobRequest, idempotencyKey: string): Exchange<JobAck>;
  list(routerId: string): Exchange<JobListItem[]>;
  command(routerId: string, request: SyncRequest): Exchange<RouterRecord[]>;
  /**
   * One job's paths, one per spelling the API documents, tried in this order until one is routed; absent where
   * the API reads no single job (the spec's). `GET` reads the job, `DELETE` cancels it where it has not started.
   */
  readonly jobPaths?: (routerId: string, jobId: string) => readonly string[];
  /**
   * A site's backups (`filename` undefined) or one backup's export, one path per spelling the API documents, as
   * `jobPaths`; absent where the API keeps no backups of its own (the spec's: the backup stays on the router).
   */
  readonly backupPaths?: (routerId: string, filename?: string) => readonly string[];
  /** The routers the token can see, where the API has such a list; undefined where it documents none. */
  readonly routers?: () => Exchange<RouterSummary[]>;
}

/** One job as a profile reads it: bare or in the envelope, with a `status` from its timestamps if it has none. */
export const oneJobSchema: z.ZodType<{ data: JobListItem }> = z.preprocess(
  (body) => asEnvelope(body),
  successEnvelope(jobListItemSchema),
);

/** One backup as a client reads it: the documented item, tolerant of missing or extra fields. */
export const backupItemSchema = z.looseObject({
  filename: z.string().min(1),
  size: z.number().nullish(),
  date: z.string().nullish(),
  time: z.string().nullish(),
  created_at: z.string().nullish(),
});
export type BackupItem = z.output<typeof backupItemSchema>;

/** A site's backups, a bare array or in the envelope. */
export const backupListSchema: z.ZodType<{ data: BackupItem[] }> = z.preprocess(
  (body) => asEnvelope(body),
  successEnvelope(z.array(backupItemSchema)),
);

/** One backup's export text, from `{content}` bare or in the envelope. */
export const backupContentSchema: z.ZodType<{ data: string }> = z.preprocess(
  (body) => asEnvelope(body),
  successEnvelope(z.looseObject({ content: z.string() }).transform((backup) => backup.content)),
);

/** Where a paged list's next page is, as the answer offers it: a link to follow, or a cursor to send back. */
export type NextPage = { readonly url: string } | { readonly cursor: string } | undefined;

/**
 * What a list answer offers of its next page. The public service's lists got "standardized pagination" with no
 * shape shown; these are the shapes Laravel, behind it, writes: a resource collection's `links.next` (and its
 * `meta.next_cursor`), a paginator's `next_page_url` and a cursor paginator's `next_cursor`. A link wins over a
 * cursor; nothing offered, or null, is the last page.
 */
export function nextPageOf(body: unknown): NextPage {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const nested = (key: string, field: string): unknown => {
    const value = record[key];
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)[field]
      : undefined;
  };
  const url = [nested("links", "next"), record.next_page_url].find(
    (value) => typeof value === "string" && value,
  );
  if (typeof url === "string") return { url };
  const cursor = [nested("meta", "next_cursor"), record.next_cursor].find(
    (value) => typeof value === "string" && value,
  );
  return typeof cursor === "string" ? { cursor } : undefined;
}

/** Where a page's next page rides beside `data`: a key no JSON answer of a service holds. */
const NEXT_KEY = "\u0000next_page";

/**
 * One page of a job list: its jobs (bare, in the envelope, or a paginator's `{data, links, meta}`) and its next
 * page. The next page rides beside `data` under a key no answer has, so an item's problem is named as in a
 * whole list (`data.3.id`).
 */
export const jobPageSchema: z.ZodType<{ data: { jobs: JobListItem[]; next: NextPage } }> = z
  .preprocess((body) => {
    const next = nextPageOf(body);
    if (Array.isArray(body)) return { status: "success", data: body, [NEXT_KEY]: next };
    if (typeof body !== "object" || body === null) return body;
    const record = body as { status?: unknown; data?: unknown };
    const paginator = record.status === undefined && Array.isArray(record.data);
    return { ...record, ...(paginator ? { status: "success" } : {}), [NEXT_KEY]: next };
  }, jobListResponseSchema)
  .transform((page) => ({
    data: { jobs: page.data, next: (page as Record<string, unknown>)[NEXT_KEY] as NextPage },
  }));

/** A bare answer read as the spec's envelope, so both shapes go through one reader. */
const asEnvelope = (body: unknown) => (isEnvelope(body) ? body : { status: "success", data: body });

function isEnvelope(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { status?: unknown }).status === "success";
}

/**
 * Records as users see them in both profiles: the spec's keys (`.id` as `id`, `-` as `_`) and every value a
 * string (`1500` as "1500", `true` as "true"), from the spec's envelope or a raw RouterOS reply alike.
 */
const recordsSchema = z.preprocess(
  (body) => (Array.isArray(body) ? asEnvelope(body) : body),
  successEnvelope(z.array(tolerantRouterRecordSchema.transform(toServiceRecord))),
);

const specAckSchema = successEnvelope(
  z.looseObject({
    idempotency_key: tolerantUuidSchema,
    request_id: tolerantUuidSchema,
    target: tolerantUuidSchema,
    notify_url: z.string().nullish(),
    date: z.string(),
  }),
);

export const specProfile: ApiProfile = {
  name: "spec",
  honoursIdempotencyKey: false,
  jobRequest: jobRequestSchemaFor("spec"),
  submit: (routerId, job, idempotencyKey) => ({
    request: {
      method: "POST",
      path: `/api/asynchronous/${routerId}`,
      // Our service takes either name; the public service's newer API uses the X- one.
      headers: { "idempotency-key": idempotencyKey, "x-idempotency-key": idempotencyKey },
      body: JSON.stringify(job),
    },
    schema: specAckSchema,
  }),
  list: (routerId) => ({
    request: { method: "GET", path: `/api/routers/${routerId}/jobs`, headers: {} },
    schema: jobListResponseSchema,
  }),
  command: (routerId, request) => ({
    request: {
      method: "POST",
      path: `/api/synchronous/${routerId}`,
      headers: {},
      body: JSON.stringify(request),
    },
    schema: recordsSchema,
  }),
  // routerjobs' own service's extension (docs/service.md); the public service answers it with a 404.
  routers: () => ({
    request: { method: "GET", path: "/api/routers", headers: {} },
    schema: routerListEnvelopeSchema,
  }),
};

/**
 * The sites API's answer to a submission, a bare job, read as the client's acknowledgement. It has no
 * `request_id`: the job's `id` stands in (it is what identifies the submission there), and is also kept as
 * `job_id`. `target` is the site, `date` the job's `created_at`; there is never a `notify_url`.
 */
function siteJobAckSchema(siteId: string, idempotencyKey: string): z.ZodType<{ data: JobAck }> {
  return z.preprocess(
    (body) => (isEnvelope(body) ? (body as { data?: unknown }).data : body),
    z
      .looseObject({
        id: tolerantUuidSchema,
        site_id: tolerantUuidSchema.optional(),
        idempotency_key: tolerantUuidSchema.optional(),
        created_at: z.string(),
      })
      .transform((job) => ({
        data: {
          idempotency_key: job.idempotency_key ?? idempotencyKey,
          request_id: job.id,
          target: job.site_id ?? siteId,
          notify_url: null,
          date: job.created_at,
          job_id: job.id,
        },
      })),
  );
}

export const sdxProfile: ApiProfile = {
  name: "sdx",
  honoursIdempotencyKey: true,
  jobRequest: jobRequestSchemaFor("sdx"),
  submit: (routerId, job, idempotencyKey) => {
    const problems = [
      sdxNotifyUrlProblem(job.notify_url),
      job.description === undefined ? undefined : sdxDescriptionProblem(job.description),
    ].filter((problem) => problem !== undefined);
    if (problems.length > 0) throw new ValidationError(problems);
    return {
      request: {
        method: "POST",
        path: `/sites/${routerId}/jobs`,
        headers: {
          "content-type": "text/plain; charset=utf-8",
          "x-idempotency-key": idempotencyKey,
          // Optional in this API: left out when the job has no description.
          ...(job.description === undefined ? {} : { "x-description": utf8HeaderValue(job.description) }),
          "x-needs-ack": String(job.needs_acknowledgement),
          "x-backup": String(job.make_backup),
          "x-express-execute": String(job.express_execute),
        },
        body: job.script,
      },
      schema: siteJobAckSchema(routerId, idempotencyKey),
    };
  },
  list: (routerId) => ({
    request: { method: "GET", path: `/sites/${routerId}/jobs`, headers: {} },
    schema: jobListResponseSchema,
  }),
  command: (routerId, { command, parameters }) => ({
    request: {
      method: "POST",
      path: `/sites/${routerId}/commands/synchronous`,
      headers: {},
      // The spec's one string of API words becomes the array this API takes, split as our service splits it.
      body: JSON.stringify({ command, parameters: splitWords(parameters ?? "") }),
    },
    schema: recordsSchema,
  }),
  // The older edition's spelling first, as this profile's other paths; then the v1 host's.
  jobPaths: (routerId, jobId) => [`/sites/${routerId}/jobs/${jobId}`, `/site/${routerId}/job/${jobId}`],
  // The v1 host's spelling first (the one the current documentation shows), then the older edition's.
  backupPaths: (routerId, filename) =>
    filename === undefined
      ? [`/backup/${routerId}`, `/sites/${routerId}/backups`]
      : [`/backup/${routerId}/${filename}`, `/sites/${routerId}/backups/${filename}`],
};

export const API_PROFILE: Readonly<Record<ApiProfileName, ApiProfile>> = {
  spec: specProfile,
  sdx: sdxProfile,
};
