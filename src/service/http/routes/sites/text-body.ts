import type { FastifyInstance, FastifyRequest } from "fastify";
import { HttpError } from "../../http-error.js";

const UTF8_CHARSETS: ReadonlySet<string> = new Set(["utf-8", "utf8", "us-ascii"]);

/**
 * Makes `text/plain` (UTF-8) the only body type of the scope it is called in, as the sites API's job
 * submission takes the script itself as the body. Any other type is a 415 that says what to send.
 * Fastify's content-type parsers are encapsulated: the JSON routes elsewhere keep theirs.
 */
export function acceptOnlyTextPlain(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("text/plain", { parseAs: "buffer" }, (request, body, done) => {
    try {
      done(null, decodeUtf8(request, body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser("*", (request, _payload, done) => {
    const type = request.headers["content-type"];
    done(
      new HttpError(
        "unsupported_media_type",
        `Content-Type must be text/plain (got ${type ? JSON.stringify(type.slice(0, 60)) : "none"}): the body is the RouterOS script`,
      ),
      undefined,
    );
  });
}

function decodeUtf8(request: FastifyRequest, body: Buffer): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers["content-type"] ?? "")?.[1];
  if (charset && !UTF8_CHARSETS.has(charset.toLowerCase())) {
    throw new HttpError(
      "unsupported_media_type",
      `the script must be sent as UTF-8 (Content-Type: text/plain; charset=utf-8), not ${JSON.stringify(charset.slice(0, 40))}`,
    );
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw new HttpError("invalid_request", "the script (request body) is not valid UTF-8", [
      { field: "body", message: "script must be UTF-8 text" },
    ]);
  }
}
