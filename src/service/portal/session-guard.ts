import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { readCookie, SESSION_COOKIE } from "./cookies.js";
import { csrfToken, findSession, type PortalSession } from "./sessions.js";

/** What a signed-in page needs: the session, and the header's scope and sign-out CSRF token. */
export interface SignedIn {
  readonly session: PortalSession;
  readonly chrome: { readonly csrf: string; readonly scope: string };
}

export async function signedIn(app: FastifyInstance, request: FastifyRequest): Promise<SignedIn | undefined> {
  const id = readCookie(request.headers.cookie, SESSION_COOKIE);
  const session = id ? await findSession(app.db, id, new Date()) : undefined;
  if (!session) return undefined;
  const scope = session.teamId === null ? "admin: all teams" : `team ${session.teamId}`;
  return { session, chrome: { csrf: csrfToken(session.id), scope } };
}

/** No session: back to the sign-in form (303, so that a refreshed POST is not sent again). */
export function toSignIn(reply: FastifyReply): FastifyReply {
  return reply.code(303).header("location", "/portal").send();
}
