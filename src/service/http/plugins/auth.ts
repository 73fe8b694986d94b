import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { isParsedToken, parseToken } from "../../../contract/token.js";
import { bearerToken } from "../../../platform/http/bearer.js";
import { authenticate, type Caller } from "../../auth/directory.js";
import { VerifiedTokens } from "../../auth/verified-tokens.js";
import { HttpError } from "../http-error.js";

declare module "fastify" {
  interface FastifyRequest {
    caller?: Caller;
  }
  interface FastifyInstance {
    /** onRequest hook: sets `request.caller` or answers 401. */
    authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  }
}

const unauthenticated = (message: string, error = "invalid_token") =>
  new HttpError("unauthenticated", message, [], {
    "www-authenticate": `Bearer realm="routerjobs", error="${error}"`,
  });

/**
 * Bearer token authentication. A malformed token is refused before any database lookup; the answer never
 * says whether a well-formed token id exists.
 */
export default fp(
  async function auth(app: FastifyInstance) {
    // On PGlite this process is the store's only writer, so what it verified stays true until it revokes it.
    const verified = VerifiedTokens.forStore(app.db);
    app.decorate("authenticate", async (request: FastifyRequest) => {
      // Node keeps the first of two Authorization headers and drops the other: which one was meant is unknown.
      if (authorizationHeaders(request.raw.rawHeaders) > 1) {
        throw new HttpError("bad_request", "send one Authorization header, not several", [], {
          "www-authenticate": 'Bearer realm="routerjobs", error="invalid_request"',
        });
      }
      const header = request.headers.authorization;
      if (!header)
        throw unauthenticated("send an Authorization: Bearer <API token> header", "invalid_request");
      const token = bearerToken(header);
      if (!token)
        throw unauthenticated("the Authorization header must be Bearer <API token>", "invalid_request");
      const parsed = parseToken(token);
      if (!isParsedToken(parsed)) throw unauthenticated(`the API token is malformed: ${parsed.error}`);
      const caller = await (verified ? verified.authenticate(app.db, token) : authenticate(app.db, token));
      if (!caller) throw unauthenticated("the API token is unknown or revoked");
      request.caller = caller;
    });
  },
  { name: "auth", dependencies: ["database"] },
);

export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error("route registered outside the authenticated scope");
  return request.caller;
}

function authorizationHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]?.toLowerCase() === "authorization") count++;
  }
  return count;
}
