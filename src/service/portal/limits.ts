import type { FastifyInstance } from "fastify";
import { formatDuration, type RateLimit } from "../../contract/duration.js";
import type { RateDecision } from "../auth/rate-limiter.js";
import { HttpError } from "../http/http-error.js";
import { type PortalSession, sessionIdHash } from "./sessions.js";

/** Keys of the portal's limits: never a bare token id, which is the API budget's key (plugins/rate-limit.ts). */
const KEY_PREFIX = "portal:";

/** The 429 of a portal limit: the error page (index.ts) shows its message and Retry-After. */
export function portalLimitReached(message: string, retryAfterSeconds: number): HttpError {
  return new HttpError("rate_limited", `${message}; try again in ${retryAfterSeconds} s`, [], {
    "retry-after": String(retryAfterSeconds),
  });
}

const perWindow = (limit: RateLimit, what: string, per: string) =>
  `at most ${limit.count} ${what} per ${formatDuration(limit.windowMs)} per ${per}`;

/** A limit (`name` in its keys) that throws the portal's 429, naming itself, when `key` has used it up. */
function limitOf(app: FastifyInstance, name: string, limit: RateLimit, what: string, per: string) {
  const take = app.rateLimiter(limit);
  const message = perWindow(limit, what, per);
  return async (key: string): Promise<void> => {
    const decision: RateDecision = await take(`${KEY_PREFIX}${name}:${key}`);
    if (!decision.allowed) throw portalLimitReached(message, decision.retryAfterSeconds ?? 1);
  };
}

export interface SignInLimits {
  /**
   * Counts a sign-in attempt from `address` that names `tokenId` (undefined: a malformed token), before its
   * secret is looked at; throws the 429 of the first limit used up. The API key's budget is not touched: a
   * stranger who knows a token id can keep that id from the sign-in form for a while, never from the API.
   */
  admit(address: string, tokenId: string | undefined): Promise<void>;
}

export function signInLimits(app: FastifyInstance): SignInLimits {
  const { portalSignInPerAddress, portalSignInPerToken } = app.config;
  const byAddress = limitOf(
    app,
    "sign-in-address",
    portalSignInPerAddress,
    "sign-in attempts",
    "client address",
  );
  const byToken = limitOf(app, "sign-in-token", portalSignInPerToken, "sign-in attempts", "token");
  return {
    async admit(address, tokenId) {
      await byAddress(address);
      if (tokenId !== undefined) await byToken(tokenId);
    },
  };
}

/** The key of a session's team in the per-team limits: every admin session (all teams) counts as one. */
export const teamKey = (session: Pick<PortalSession, "teamId">): string => session.teamId ?? "all-teams";

export interface PageLimits {
  /** Counts a request of a signed-in session (a page, a live page's refresh, a stream opened, a download). */
  admit(session: PortalSession): Promise<void>;
}

/**
 * Requests per session and per team, so that one session (or one team's many) cannot keep the store busy
 * for everyone: a session is named by its id's hash, never the id (on PostgreSQL the key is stored).
 */
export function pageLimits(app: FastifyInstance): PageLimits {
  const { portalPagesPerSession, portalPagesPerTeam } = app.config;
  const bySession = limitOf(app, "pages-session", portalPagesPerSession, "pages", "session");
  const byTeam = limitOf(app, "pages-team", portalPagesPerTeam, "pages", "team");
  return {
    async admit(session) {
      await bySession(sessionIdHash(session.id));
      await byTeam(teamKey(session));
    },
  };
}

/** A refused stream cannot know when another one ends: the browser's EventSource retry interval. */
export const STREAM_RETRY_AFTER_SECONDS = 5;

/** The 429 of the open-stream caps. */
export const streamCapReached = (cap: number, per: string): HttpError =>
  portalLimitReached(`at most ${cap} open event streams per ${per}`, STREAM_RETRY_AFTER_SECONDS);
