import type { FastifyInstance, FastifyReply } from "fastify";
import { errorEnvelope } from "../../contract/errors.js";
import { type ReceiverCoreOptions, receive } from "./receive.js";
import { matchesAnySecret, type VerifyFailure } from "./verify.js";

/** Notifications are a few hundred bytes; a small limit keeps an unauthenticated sender from costing memory. */
export const NOTIFY_BODY_LIMIT_BYTES = 16 * 1024;

export interface NotifyRouteOptions extends ReceiverCoreOptions {
  /** Accepted path secrets; several during a rotation. */
  readonly pathSecrets: readonly string[];
  /** @default NOTIFY_BODY_LIMIT_BYTES */
  readonly bodyLimitBytes?: number;
}

const SIGNATURE_MESSAGES: Record<VerifyFailure, string> = {
  missing_headers: "webhook-id, webhook-timestamp and webhook-signature headers are required",
  malformed_timestamp: "webhook-timestamp must be whole seconds since the Unix epoch",
  timestamp_too_old: "webhook-timestamp is more than 5 minutes in the past",
  timestamp_in_future: "webhook-timestamp is more than 5 minutes in the future",
  signature_mismatch: "webhook-signature does not match the body for any configured signing secret",
};

/**
 * The thin HTTP adapter over `receive`: it owns the status codes and nothing else. Errors that Fastify raises
 * while reading the body (413, 415) are shaped by the app's error handler.
 */
export async function notifyRoute(app: FastifyInstance, options: NotifyRouteOptions): Promise<void> {
  // The body must reach `receive` as raw bytes, because the signature covers the bytes and not a re-serialisation.
  // Only JSON is accepted: every other media type gets Fastify's 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
    done(null, body),
  );

  app.post<{ Params: { secret: string } }>(
    "/notify/:secret",
    {
      bodyLimit: options.bodyLimitBytes ?? NOTIFY_BODY_LIMIT_BYTES,
      // Before the body is read, so that a sender without the secret cannot make us buffer anything.
      onRequest: async (request, reply) => {
        if (!matchesAnySecret(request.params.secret, options.pathSecrets)) {
          return unauthenticated(reply, "the notification URL's secret is not one this receiver accepts");
        }
      },
    },
    async (request, reply) => {
      // A POST without a body reaches here with none: for the JSON parser that is an empty, malformed body.
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const outcome = await receive(options, body, {
        id: header(request.headers["webhook-id"]),
        timestamp: header(request.headers["webhook-timestamp"]),
        signature: header(request.headers["webhook-signature"]),
      });
      switch (outcome.kind) {
        case "stored":
          return reply.code(200).send({
            status: "success",
            data: { duplicate: outcome.duplicate, job_status: outcome.job.status },
          });
        case "unauthenticated":
          return unauthenticated(reply, SIGNATURE_MESSAGES[outcome.reason]);
        case "malformed":
          return reply.code(400).send(errorEnvelope("invalid_json", outcome.message));
        case "invalid":
          return reply
            .code(422)
            .send(
              errorEnvelope("invalid_request", "the notification does not match the notification payload", [
                ...outcome.details,
              ]),
            );
      }
    },
  );
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(" ") : value;
}

function unauthenticated(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(401).send(errorEnvelope("unauthenticated", message));
}
