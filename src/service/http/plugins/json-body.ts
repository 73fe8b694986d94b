import { isUtf8 } from "node:buffer";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { ErrorDetail } from "../../../contract/errors.js";
import { HttpError } from "../http-error.js";

/**
 * JSON bodies must be UTF-8 (RFC 8259 8.1). Fastify's parser decodes the bytes leniently, and a byte that is
 * not UTF-8 became U+FFFD in the stored script or description, where the sites API refuses such a body
 * (routes/sites/text-body.ts). Here it is refused too, with the fields that hold such bytes named.
 */
export default fp(
  async function jsonBody(app: FastifyInstance) {
    const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig as {
      onProtoPoisoning?: string;
      onConstructorPoisoning?: string;
    };
    const parseJson = app.getDefaultJsonParser(
      (onProtoPoisoning ?? "error") as "error",
      (onConstructorPoisoning ?? "error") as "error",
    );
    app.removeContentTypeParser("application/json");
    app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
      const bytes = body as Buffer;
      if (isUtf8(bytes)) return parseJson(request, bytes.toString("utf8"), done);
      const fields = fieldsNotUtf8(bytes);
      const where = fields.length > 0 ? ` (in ${fields.join(", ")})` : "";
      const details: ErrorDetail[] = (fields.length > 0 ? fields : ["body"]).map((field) => ({
        field,
        message: `${field} is not valid UTF-8`,
      }));
      done(
        new HttpError(
          "invalid_json",
          `the request body is not valid UTF-8${where}: send JSON as UTF-8`,
          details,
        ),
        undefined,
      );
    });
  },
  { name: "json-body" },
);

/**
 * The fields (`script`, `a.b.0`) whose strings hold bytes that are not UTF-8: the body parsed twice, those
 * bytes replaced by one ASCII character and then by another; the strings that differ are the ones that held
 * them. Empty when they are outside any string (then the body is no JSON either way).
 */
export function fieldsNotUtf8(bytes: Uint8Array): string[] {
  let first: unknown;
  let second: unknown;
  try {
    first = JSON.parse(new TextDecoder().decode(replaceInvalidUtf8(bytes, 0x3f)));
    second = JSON.parse(new TextDecoder().decode(replaceInvalidUtf8(bytes, 0x21)));
  } catch {
    return [];
  }
  const fields: string[] = [];
  differences(first, second, "", fields);
  return fields;
}

function differences(first: unknown, second: unknown, path: string, out: string[]): void {
  const at = (key: string | number) => (path ? `${path}.${key}` : String(key));
  if (typeof first === "string" || typeof second === "string") {
    if (first !== second) out.push(path || "body");
    return;
  }
  if (first === null || second === null || typeof first !== "object" || typeof second !== "object") return;
  const firstKeys = Object.keys(first);
  const secondKeys = Object.keys(second);
  firstKeys.forEach((key, index) => {
    // A key that held such bytes names its object: the key itself is not a field the client would recognise.
    if (key !== secondKeys[index]) {
      if (!out.includes(path || "body")) out.push(path || "body");
      return;
    }
    differences(
      (first as Record<string, unknown>)[key],
      (second as Record<string, unknown>)[key],
      at(key),
      out,
    );
  });
}

/** `bytes` with every byte that is not part of a well-formed UTF-8 sequence replaced by `replacement`. */
function replaceInvalidUtf8(bytes: Uint8Array, replacement: number): Uint8Array {
  const out = Uint8Array.from(bytes);
  let index = 0;
  while (index < bytes.length) {
    const length = sequenceLength(bytes, index);
    if (length === 0) out[index++] = replacement;
    else index += length;
  }
  return out;
}

/** The length of the well-formed UTF-8 sequence at `index` (Unicode Table 3-7), or 0 when there is none. */
function sequenceLength(bytes: Uint8Array, index: number): number {
  const lead = bytes[index] as number;
  const continuation = (offset: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[index + offset];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (lead <= 0x7f) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return continuation(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const low = lead === 0xe0 ? 0xa0 : 0x80;
    const high = lead === 0xed ? 0x9f : 0xbf;
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const low = lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xf4 ? 0x8f : 0xbf;
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}
