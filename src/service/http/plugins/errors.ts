import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { ERROR_STATUS, type ErrorCode, type ErrorDetail, errorEnvelope } from "../../../contract/errors.js";
import { BODY_MAX_BYTES } from "../../../contract/limits.js";
import { DataDirectoryLostError } from "../../database/data-directory-lock.js";
import { isStorageFull, STORAGE_FULL_RETRY_AFTER_S } from "../../database/storage-full.js";
import { HttpError } from "../http-error.js";

/** Fastify's own errors, mapped to the contract's codes. */
const FASTIFY_CODES: Readonly<Record<string, [ErrorCode, string]>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ["unsupported_media_type", "Content-Type must be application/json"],
  FST_ERR_CTP_BODY_TOO_LARGE: [
    "payload_too_large",
    `the request body must be at most ${BODY_MAX_BYTES} bytes`,
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: ["invalid_json", "the request body is empty; send a JSON object"],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ["invalid_json", "the request body does not match its Content-Length"],
  FST_ERR_CTP_INVALID_JSON_BODY: ["invalid_json", "the request body is not valid JSON"],
};

/** Turns a zod issue into the field it names: `script`, `router_id`, or the unknown key itself. */
function validationDetails(error: FastifyError, context: string | undefined): ErrorDetail[] {
  return (error.validation ?? []).map((issue) => {
    const path = issue.instancePath.replace(/^\//, "").replaceAll("/", ".");
    const keys = (issue.params as { keys?: unknown }).keys;
    const field = Array.isArray(keys) && keys.length > 0 ? keys.join(",") : path || (context ?? "body");
    return { field, message: issue.message ?? "is invalid" };
  });
}

function toHttpError(error: FastifyError): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if ((error as Error) instanceof DataDirectoryLostError) {
    return new HttpError(
      "service_unavailable",
      "this service instance is stopping: it lost its data directory",
    );
  }
  if (isStorageFull(error)) {
    return new HttpError(
      "service_unavailable",
      "the service's storage is full: nothing of this request was stored; retry later",
      [],
      { "retry-after": String(STORAGE_FULL_RETRY_AFTER_S) },
    );
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const details = validationDetails(error, error.validationContext);
    const fields = [...new Set(details.map((detail) => detail.field))].join(", ");
    return new HttpError("invalid_request", `the request is invalid: check ${fields}`, details);
  }
  const known = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (known) return new HttpError(known[0], known[1]);
  // The JSON parser reports a syntax error (or a forbidden __proto__ key) as a plain 400.
  if (error instanceof SyntaxError || (error.statusCode === 400 && error.code === undefined)) {
    return new HttpError("invalid_json", `the request body is not valid JSON: ${error.message}`);
  }
  return undefined;
}

export function sendError(reply: FastifyReply, error: HttpError): FastifyReply {
  reply.headers(error.headers);
  const body = errorEnvelope(error.errorCode, error.message, error.details);
  return reply
    .code(error.statusCode)
    .send({ ...body, error: { ...body.error, request_id: reply.request.id } });
}

/** 404 for a path no route serves; a scope that sets it too (`/api`) runs its own hooks (auth, rate limit) first. */
export function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(
    reply,
    new HttpError("not_found", `no such path: ${request.method} ${request.url.split("?")[0]}`),
  );
}

/**
 * The contract's error envelope for every failure, a request id on every response, and 404/405 answers.
 * A 5xx is only ever an internal fault or a router problem, never bad input.
 */
export default fp(
  async function errors(app: FastifyInstance) {
    app.addHook("onRequest", async (request, reply) => {
      reply.header("x-request-id", request.id);
    });
    app.setErrorHandler((error: FastifyError, request, reply) => {
      // The operator must hear of a full disk (the client only sees a 503 and retries): the log names it.
      if (isStorageFull(error)) request.log.error({ err: error }, "storage full: a request was refused");
      const known = toHttpError(error);
      if (known) return sendError(reply, known);
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const code = (Object.entries(ERROR_STATUS).find(([, value]) => value === status)?.[0] ??
          "invalid_request") as ErrorCode;
        return sendError(reply, new HttpError(code, error.message));
      }
      request.log.error({ err: error }, "internal error");
      return sendError(
        reply,
        new HttpError("internal_error", "internal error; the request id identifies it"),
      );
    });
    app.setNotFoundHandler(notFound);
  },
  { name: "errors" },
);

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** Answers 405 (with `Allow`) for the methods a known path does not take, instead of a misleading 404. */
export function methodNotAllowed(app: FastifyInstance, url: string, allowed: readonly string[]): void {
  const allow = allowed.includes("GET") ? [...allowed, "HEAD"] : [...allowed];
  app.route({
    method: METHODS.filter((method) => !allow.includes(method)),
    url,
    handler: async (request: FastifyRequest, reply: FastifyReply) =>
      sendError(
        reply,
        new HttpError(
          "method_not_allowed",
          `${request.method} is not allowed here; use ${allow.join(" or ")}`,
          [],
          {
            allow: allow.join(", "),
          },
        ),
      ),
  });
}
