import type { RateLimit } from "../contract/duration.js";
import { DEFAULT_RATE_LIMIT } from "../contract/limits.js";
import { UsageError } from "../errors.js";
import { parseAllowList } from "./notifications/notify-destinations.js";
import type { NotifySettings } from "./notifications/notify-settings.js";

/** Everything the service can be told; `resolveConfig` applies the defaults in one place. */
export interface ServiceConfig extends NotifySettings {
  /** `postgres://...` or a PGlite data directory (`memory://` for a throwaway one). */
  readonly database: string;
  /** Where the admin token and generated TLS files live; undefined for an in-memory test service. */
  readonly dataDir?: string;
  /** @default 60 requests per 60 s (the spec's limit) */
  readonly rateLimit: RateLimit;
  /**
   * Scheduler period for jobs without express execution. The spec's; declared deploys submit express by
   * default (docs/decisions.md), so only jobs that asked to be batched wait for it. @default 10 s
   */
  readonly tickMs: number;
  /** A synchronous command that takes longer answers 504. @default 10 s */
  readonly syncTimeoutMs: number;
  /** Routers whose queues run at the same time in one instance. @default 32 */
  readonly schedulerConcurrency: number;
  /**
   * On shutdown, scripts still running may finish for this long; then they are aborted and their jobs fail.
   * @default 30 s
   */
  readonly shutdownGraceMs: number;
  /**
   * A job's backup and script may run this long; then the script is stopped (a simulated router stops it, a
   * device's script may go on: see docs/routers.md) and the job fails naming the limit. @default 1 h
   */
  readonly jobTimeoutMs: number;
  /** Bearer token of the `/admin` API; undefined disables it. */
  readonly adminToken?: string;
  /** Accept admin calls from other hosts than loopback. @default false */
  readonly adminRemote: boolean;
  /** Serve the read-only web portal at `/portal` (docs/portal.md). @default true */
  readonly portal: boolean;
  /**
   * Portal sign-in attempts from one client address, whatever token they name. Apart from the API's budget:
   * a sign-in never spends the key's requests. @default 20 per 60 s
   */
  readonly portalSignInPerAddress: RateLimit;
  /**
   * Portal sign-in attempts naming one token id (the admin token counts as one), right secret or wrong, from
   * any address. @default 10 per 60 s
   */
  readonly portalSignInPerToken: RateLimit;
  /**
   * Portal requests of one signed-in session: pages, the refreshes of live pages, streams opened, downloads.
   * A live page refreshes at most once a poll (1 s), so a few open tabs stay well inside. @default 300 per 60 s
   */
  readonly portalPagesPerSession: RateLimit;
  /** The same, of all sessions of one team together (the admin's sessions count as one team). @default 1200 per 60 s */
  readonly portalPagesPerTeam: RateLimit;
  /**
   * Event streams (live pages) one session may hold open at once in one instance; each polls the database
   * once a second. @default 8
   */
  readonly portalStreamsPerSession: number;
  /** The same, of all sessions of one team together. @default 32 */
  readonly portalStreamsPerTeam: number;
}

export type ServiceConfigInput = Partial<ServiceConfig> & Pick<ServiceConfig, "database">;

export function resolveConfig(input: ServiceConfigInput): ServiceConfig {
  const config: ServiceConfig = {
    ...input,
    rateLimit: input.rateLimit ?? DEFAULT_RATE_LIMIT,
    tickMs: input.tickMs ?? 10_000,
    syncTimeoutMs: input.syncTimeoutMs ?? 10_000,
    notifyRetryBaseMs: input.notifyRetryBaseMs ?? 1000,
    notifyRetryMaxMs: input.notifyRetryMaxMs ?? 600_000,
    notifyGiveUpMs: input.notifyGiveUpMs ?? 24 * 3_600_000,
    notifyTimeoutMs: input.notifyTimeoutMs ?? 10_000,
    notifyConcurrency: input.notifyConcurrency ?? 16,
    notifyAllow: input.notifyAllow ?? [],
    schedulerConcurrency: input.schedulerConcurrency ?? 32,
    shutdownGraceMs: input.shutdownGraceMs ?? 30_000,
    jobTimeoutMs: input.jobTimeoutMs ?? 3_600_000,
    adminRemote: input.adminRemote ?? false,
    portal: input.portal ?? true,
    portalSignInPerAddress: input.portalSignInPerAddress ?? { count: 20, windowMs: 60_000 },
    portalSignInPerToken: input.portalSignInPerToken ?? { count: 10, windowMs: 60_000 },
    portalPagesPerSession: input.portalPagesPerSession ?? { count: 300, windowMs: 60_000 },
    portalPagesPerTeam: input.portalPagesPerTeam ?? { count: 1200, windowMs: 60_000 },
    portalStreamsPerSession: input.portalStreamsPerSession ?? 8,
    portalStreamsPerTeam: input.portalStreamsPerTeam ?? 32,
  };
  for (const key of [
    "tickMs",
    "syncTimeoutMs",
    "notifyRetryBaseMs",
    "notifyTimeoutMs",
    "shutdownGraceMs",
    "jobTimeoutMs",
  ] as const) {
    if (!(config[key] > 0)) throw new UsageError(`${key} must be greater than zero (got ${config[key]})`);
  }
  for (const key of [
    "notifyConcurrency",
    "schedulerConcurrency",
    "portalStreamsPerSession",
    "portalStreamsPerTeam",
  ] as const) {
    if (!Number.isInteger(config[key]) || config[key] < 1) {
      throw new UsageError(`${key} must be a whole number of at least 1 (got ${config[key]})`);
    }
  }
  for (const key of [
    "portalSignInPerAddress",
    "portalSignInPerToken",
    "portalPagesPerSession",
    "portalPagesPerTeam",
  ] as const) {
    const { count, windowMs } = config[key];
    if (!Number.isSafeInteger(count) || count < 1 || !(windowMs > 0)) {
      throw new UsageError(
        `${key} must admit a whole number of at least 1 per window of more than 0 ms (got ${count} per ${windowMs} ms)`,
      );
    }
  }
  parseAllowList(config.notifyAllow);
  return config;
}
