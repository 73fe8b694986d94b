import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { adminReachableFrom } from "../auth/admin-access.js";
import { Verified } from "../auth/verified.js";
import type { Database } from "../database/database.js";
import { readCookie, SESSION_COOKIE } from "./cookies.js";
import type { PageLimits } from "./limits.js";
import { teamLabel } from "./pages/format.js";
import { csrfToken, findSession, type PortalSession } from "./sessions.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The portal's per-session and per-team request limits (limits.ts); decorated inside /portal only. */
    readonly portalPageLimits: PageLimits;
  }
}

/** What a signed-in page needs: the session, and the header's scope and sign-out CSRF token. */
export interface SignedIn {
  readonly session: PortalSession;
  readonly chrome: { readonly csrf: string; readonly scope: string };
}

/** Each store's verified sessions (verified.ts: the embedded store only), so that a page skips its session's lookup. */
const verifiedSessions = new WeakMap<Database, Verified<PortalSession> | undefined>();

async function liveSession(db: Database, id: string, now: Date): Promise<PortalSession | undefined> {
  if (!verifiedSessions.has(db)) verifiedSessions.set(db, Verified.forStore(db));
  const verified = verifiedSessions.get(db);
  if (!verified) return findSession(db, id, now);
  const known = verified.known(id);
  if (known && known.expiresAt > now) return known;
  return verified.verify(id, () => findSession(db, id, now));
}

/**
 * The session of the request's cookie, counted against the session's and its team's request limits (a 429
 * thrown when one is used up), or undefined when there is none to serve here.
 */
export async function signedIn(app: FastifyInstance, request: FastifyRequest): Promise<SignedIn | undefined> {
  const current = await sessionOf(app, request);
  if (current) await app.portalPageLimits.admit(current.session);
  return current;
}

/** `signedIn` without counting the request: signing out is never refused for having read too many pages. */
export async function sessionOf(
  app: FastifyInstance,
  request: FastifyRequest,
): Promise<SignedIn | undefined> {
  const id = readCookie(request.headers.cookie, SESSION_COOKIE);
  const session = id ? await liveSession(app.db, id, new Date()) : undefined;
  if (!session) return undefined;
  // The all-teams view, like the admin API, only where the admin token may be used: a cookie carried elsewhere
  // opens nothing.
  if (session.teamId === null && !adminReachableFrom(app.config, request.socket.remoteAddress))
    return undefined;
  const scope =
    session.teamId === null ? "admin: all teams" : `team ${teamLabel(session.teamId, session.teamName)}`;
  return { session, chrome: { csrf: csrfToken(session.id), scope } };
}

/** No session: back to the sign-in form (303, so that a refreshed POST is not sent again). */
export function toSignIn(reply: FastifyReply): FastifyReply {
  return reply.code(303).header("location", "/portal").send();
}
