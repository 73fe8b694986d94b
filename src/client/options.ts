/**
 * The client's options, their defaults (one `??` block) and their validation, done once at construction.
 */
import { readFileSync } from "node:fs";
import {
  API_PROFILES,
  type ApiProfileName,
  DEFAULT_API_PROFILE,
  isApiProfileName,
} from "../contract/api-profile-name.js";
import type { RateLimit } from "../contract/duration.js";
import type { ErrorDetail } from "../contract/errors.js";
import { describeValue } from "../contract/ids.js";
import { DEFAULT_RATE_LIMIT } from "../contract/limits.js";
import { bearerTokenProblem } from "../contract/token.js";
import { ValidationError } from "./errors.js";
import { defaultStateDir } from "./state-dir.js";
import { USER_AGENT } from "./version.js";

export interface ClientLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
}

export interface RetryOptions {
  /** Attempts per call, the first included. @default 5 */
  readonly maxAttempts?: number;
  /** Bound of the first backoff; doubles per attempt (full jitter). @default 250 */
  readonly baseDelayMs?: number;
  /** Cap of the computed backoff. A Retry-After is honoured in full, beyond this cap. @default 20000 */
  readonly maxDelayMs?: number;
}

export interface RouterJobsClientOptions {
  /** The service's base address (`https://host:8443`); a path prefix is kept. */
  readonly baseUrl: string | URL;
  /**
   * Which job API the service speaks (profiles.ts): `spec`, the spec's `/api/...` paths, or `sdx`, the public
   * service's sites API (`/sites/{id}/...`). @default "spec"
   */
  readonly api?: ApiProfileName;
  /**
   * A bearer token of any shape: the spec's `<token_id>:<team_id>:<secret>`, a JWT, an opaque API key (visible
   * ASCII, no whitespace). Kept private: it never appears in errors, logs or `inspect`.
   */
  readonly token: string;
  /** PEM CA certificate(s) to trust, for a service with a self-signed or private certificate. */
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
  /** File holding `ca`, read once at construction. */
  readonly caFile?: string;
  /** @default 10000 */
  readonly connectTimeoutMs?: number;
  /** Per attempt: time to the response headers, and between body chunks. @default 30000 */
  readonly requestTimeoutMs?: number;
  /** Per call: everything, retries and waiting for the rate budget included. Overridable per call. @default 120000 */
  readonly deadlineMs?: number;
  /** The service's request rate for this key, enforced across processes. @default 60/1m (the spec's) */
  readonly rateLimit?: RateLimit;
  /** Directory of the shared rate-budget state. @default defaultStateDir() */
  readonly budgetDir?: string;
  /** @default "routerjobs/<version> node/<version>" */
  readonly userAgent?: string;
  readonly retry?: RetryOptions;
  readonly logger?: ClientLogger;
}

export interface ResolvedOptions {
  readonly baseUrl: URL;
  readonly api: ApiProfileName;
  readonly ca: string | Buffer | readonly (string | Buffer)[] | undefined;
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly deadlineMs: number;
  readonly rateLimit: RateLimit;
  readonly budgetDir: string;
  readonly userAgent: string;
  readonly retry: Required<RetryOptions>;
  readonly logger: ClientLogger;
}

/** Throws one ValidationError naming every bad option and its rule. The token's value is never echoed. */
export function resolveOptions(options: RouterJobsClientOptions): ResolvedOptions {
  const problems: ErrorDetail[] = [];
  const problem = (field: string, message: string) =>
    problems.push({ field, message: `${field} ${message}` });

  const baseUrl = parseBaseUrl(options.baseUrl, problem);
  // Any shape the public service may issue (spec token, JWT, console key); only unusable values are refused.
  const tokenProblem = bearerTokenProblem(options.token);
  if (tokenProblem !== undefined) problem("token", tokenProblem);
  const positive = (field: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < 1)
      problem(field, `must be a whole number of at least 1 (got ${describeValue(value)})`);
    return value;
  };
  const retry = options.retry ?? {};
  const api = options.api ?? DEFAULT_API_PROFILE;
  if (!isApiProfileName(api))
    problem(
      "api",
      `must be ${API_PROFILES.map((name) => `"${name}"`).join(" or ")} (got ${describeValue(api)})`,
    );
  const resolved: ResolvedOptions = {
    baseUrl: baseUrl ?? new URL("http://invalid"),
    api,
    ca: options.ca ?? readCa(options.caFile, problem),
    connectTimeoutMs: positive("connectTimeoutMs", options.connectTimeoutMs, 10_000),
    requestTimeoutMs: positive("requestTimeoutMs", options.requestTimeoutMs, 30_000),
    deadlineMs: positive("deadlineMs", options.deadlineMs, 120_000),
    rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
    budgetDir: options.budgetDir ?? defaultStateDir(),
    userAgent: options.userAgent ?? USER_AGENT,
    retry: {
      maxAttempts: positive("retry.maxAttempts", retry.maxAttempts, 5),
      baseDelayMs: positive("retry.baseDelayMs", retry.baseDelayMs, 250),
      maxDelayMs: positive("retry.maxDelayMs", retry.maxDelayMs, 20_000),
    },
    logger: options.logger ?? {},
  };
  positive("rateLimit.count", resolved.rateLimit.count, 1);
  positive("rateLimit.windowMs", resolved.rateLimit.windowMs, 1);
  if (problems.length > 0) throw new ValidationError(problems, "client options");
  return resolved;
}

function parseBaseUrl(
  value: string | URL,
  problem: (field: string, message: string) => void,
): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problem("baseUrl", `must be an absolute http: or https: URL (got ${describeValue(String(value))})`);
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    problem("baseUrl", `must use http: or https: (got ${describeValue(url.protocol)})`);
  } else if (url.username || url.password || url.search || url.hash) {
    problem("baseUrl", "must not carry credentials, a query or a fragment");
  }
  return url;
}

function readCa(file: string | undefined, problem: (field: string, message: string) => void) {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    problem("caFile", `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}: ${file})`);
    return undefined;
  }
}
