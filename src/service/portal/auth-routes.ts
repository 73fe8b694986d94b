import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isParsedToken, parseToken } from "../../contract/token.js";
import { adminReachableFrom } from "../auth/admin-access.js";
import { authenticate } from "../auth/directory.js";
import { clearCookie, cookie, readCookie, SESSION_COOKIE, SIGN_IN_CSRF_COOKIE } from "./cookies.js";
import type { LiveStreams } from "./events.js";
import { signInLimits } from "./limits.js";
import { messagePage } from "./pages/layout.js";
import { signInLinkPage, signInPage } from "./pages/sign-in.js";
import { sessionOf, toSignIn } from "./session-guard.js";
import {
  createSession,
  csrfToken,
  deleteSession,
  randomId,
  redeemSignInCode,
  SESSION_LIFETIME_MS,
  type SessionOwner,
  sameSecret,
} from "./sessions.js";

const NOT_ACCEPTED = "That token was not accepted. Check that it is your team's current API token.";
const FORM_EXPIRED = "The sign-in form expired. Please enter the token again.";
const LINK_FORM_EXPIRED =
  "That sign-in form did not come from this browser's visit to its link. Open the link again, or sign in with the token.";
/** The admin token's key in the per-token sign-in limit: not a token id (those are UUIDs). */
const ADMIN_SIGN_IN_KEY = "admin";
// The sign-in form's double-submit cookie lives as long as someone may leave the form open.
const SIGN_IN_FORM_SECONDS = 3600;

type Form = Record<string, string | undefined>;

/** A fresh sign-in form, with its double-submit CSRF value in a cookie and a hidden field. */
export function sendSignInForm(reply: FastifyReply, status = 200, message?: string): FastifyReply {
  const csrf = randomId();
  return reply
    .code(status)
    .header("set-cookie", cookie(SIGN_IN_CSRF_COOKIE, csrf, SIGN_IN_FORM_SECONDS))
    .type("text/html; charset=utf-8")
    .send(signInPage(csrf, message).text);
}

function startSession(reply: FastifyReply, sessionId: string): FastifyReply {
  return reply
    .code(303)
    .header("set-cookie", [
      cookie(SESSION_COOKIE, sessionId, SESSION_LIFETIME_MS / 1000),
      clearCookie(SIGN_IN_CSRF_COOKIE),
    ])
    .header("location", "/portal")
    .send();
}

export function authRoutes(app: FastifyInstance, live: LiveStreams): void {
  const limits = signInLimits(app);
  /**
   * Whose token this is, the attempt counted first against the sign-in limits of its client address and of
   * the token id it names (the admin token is one id), never against the key's API budget. Wrong and unknown
   * tokens take the same path and the same constant-time comparison (`authenticate`).
   */
  async function ownerOf(request: FastifyRequest, token: string): Promise<SessionOwner | undefined> {
    const admin = app.config.adminToken;
    // From where the admin API would refuse it, the admin token is one more token that is not accepted.
    if (admin && sameSecret(token, admin) && adminReachableFrom(app.config, request.socket.remoteAddress)) {
      await limits.admit(request.ip, ADMIN_SIGN_IN_KEY);
      return { teamId: null, tokenId: null };
    }
    const parsed = parseToken(token);
    await limits.admit(request.ip, isParsedToken(parsed) ? parsed.tokenId : undefined);
    if (!isParsedToken(parsed)) return undefined;
    const caller = await authenticate(app.db, token);
    return caller ? { teamId: caller.teamId, tokenId: caller.tokenId } : undefined;
  }

  // The form's own address, where people and links expect it: the form, or the routers when signed in already.
  app.get("/sign-in", async (request, reply) => {
    if (await sessionOf(app, request)) return reply.code(303).header("location", "/portal").send();
    return sendSignInForm(reply);
  });

  app.post("/sign-in", async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const expected = readCookie(request.headers.cookie, SIGN_IN_CSRF_COOKIE);
    if (!expected || !form.csrf || !sameSecret(form.csrf, expected)) {
      return sendSignInForm(reply, 403, FORM_EXPIRED);
    }
    const owner = await ownerOf(request, (form.token ?? "").trim());
    if (!owner) return sendSignInForm(reply, 401, NOT_ACCEPTED);
    const session = await createSession(app.db, owner, new Date());
    return startSession(reply, session.id);
  });

  app.post("/sign-out", async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const current = await sessionOf(app, request);
    if (!current) return toSignIn(reply);
    if (!form.csrf || !sameSecret(form.csrf, csrfToken(current.session.id))) {
      const page = messagePage(
        "Not signed out",
        "That form does not belong to this session.",
        current.chrome,
      );
      return reply.code(403).type("text/html; charset=utf-8").send(page.text);
    }
    await deleteSession(app.db, current.session.id);
    live.endSession(current.session.id);
    return reply
      .code(303)
      .header("set-cookie", clearCookie(SESSION_COOKIE))
      .header("location", "/portal")
      .send();
  });

  /**
   * The one-time link (`mintSignInCode`): a code that is not the token, good once, for a few minutes. Following
   * it only shows a form; the form's POST redeems the code. A link that signed in by itself would let any page
   * sign a visitor in to the team of a code it holds (login CSRF), and the visitor would act in that view as
   * in their own; the POST carries the form's double-submit value, which another site can neither read nor set.
   */
  app.get("/sign-in/code/:code", async (request, reply) => {
    const { code } = request.params as { code: string };
    const csrf = randomId();
    return reply
      .header("set-cookie", cookie(SIGN_IN_CSRF_COOKIE, csrf, SIGN_IN_FORM_SECONDS))
      .type("text/html; charset=utf-8")
      .send(signInLinkPage(csrf, code).text);
  });

  app.post("/sign-in/code", async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const expected = readCookie(request.headers.cookie, SIGN_IN_CSRF_COOKIE);
    if (!expected || !form.csrf || !sameSecret(form.csrf, expected)) {
      return sendSignInForm(reply, 403, LINK_FORM_EXPIRED);
    }
    const owner = await redeemSignInCode(app.db, form.code ?? "", new Date());
    if (!owner) return sendSignInForm(reply, 401, "That sign-in link was used already or has expired.");
    const session = await createSession(app.db, owner, new Date());
    return startSession(reply, session.id);
  });
}
