import * as z from "zod";

/** A team owns tokens of any shape and the sites (routers) those tokens may reach. */
const teamSchema = z.object({
  id: z.string().min(1),
  tokens: z.array(z.string().min(1)).min(1),
  sites: z.array(z.string().min(1)),
});

const optionsSchema = z.object({
  teams: z.array(teamSchema).min(1),
  /** Newer edition of API A: `needs_acknowledgement` defaults to false (the spec says true). @default false */
  needsAckDefault: z.boolean().default(false),
  /** Whether `GET /api/routers/{id}/jobs` still answers (undocumented on the new host). @default true */
  legacyJobList: z.boolean().default(true),
  /**
   * Which spellings of one job's path API B routes: both editions' (`/sites/{id}/jobs/{jobId}` and the v1 host's
   * `/site/{id}/job/{jobId}`), or only the v1 host's. @default "both"
   */
  oneJobPaths: z.enum(["both", "v1"]).default("both"),
  /**
   * API B's job list paged as a Laravel resource collection, this many jobs a page (`?page=N`; `data`, `links`
   * with an absolute `next`, `meta`), as "standardized pagination" may mean: its shape is not documented.
   * Unset, the list is one bare array.
   */
  jobPageSize: z.number().int().positive().optional(),
  /** Requests granted per token in any window of `rateLimitWindowMs`. @default 60 */
  rateLimitMax: z.number().int().positive().default(60),
  /** @default 60000 */
  rateLimitWindowMs: z.number().int().positive().default(60_000),
  /** Send `Retry-After` with a 429 (undocumented, so a client must cope without it). @default true */
  retryAfterHeader: z.boolean().default(true),
  /** Scheduler period for jobs without express_execute. @default 1000 */
  tickMs: z.number().int().positive().default(1000),
  /** Keep started jobs running until `release()`: a gate for tests without sleeps. @default false */
  holdJobs: z.boolean().default(false),
  /**
   * API A: create the job, then hold its acknowledgement until `releaseAcknowledgements()` (a client killed
   * between the submission and its answer). @default false
   */
  holdAcknowledgements: z.boolean().default(false),
  /** "minimal" is all the public service documents; "spec" is the spec's payload. @default "minimal" */
  notificationShape: z.enum(["minimal", "spec"]).default("minimal"),
  /** PEM of the CA that signs notification receivers' certificates (besides the system store). */
  notifyCa: z.string().optional(),
  /** Waits between delivery attempts of one notification. @default [100, 500, 2000] */
  notifyRetryDelaysMs: z.array(z.number().int().nonnegative()).default([100, 500, 2000]),
  /** Serve HTTPS with a fresh self-signed certificate for 127.0.0.1 and localhost. @default false */
  tls: z.boolean().default(false),
  /** @default "127.0.0.1" */
  host: z.string().default("127.0.0.1"),
  /** @default 0 (any free port) */
  port: z.number().int().min(0).max(65535).default(0),
});

export type StandInOptions = z.input<typeof optionsSchema>;
export type ResolvedOptions = z.output<typeof optionsSchema>;
export type Team = z.output<typeof teamSchema>;

/** Validates once, at start, so a bad option names itself instead of failing a request later. */
export function resolveOptions(input: StandInOptions): ResolvedOptions {
  const parsed = optionsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`stand-in option ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
  }
  return parsed.data;
}
