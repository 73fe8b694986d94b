/**
 * What the sites API (`sdx`) cannot carry, refused before anything is sent, and how its `X-Description` header
 * travels. Its metadata rides in headers, which hold one line of bytes: a line break would end the header, and
 * leading or trailing whitespace is stripped by every HTTP parser (the service would store another text).
 */
import type { ErrorDetail } from "../contract/errors.js";
import { DESCRIPTION_MAX_CHARS } from "../contract/limits.js";
import { SITE_DESCRIPTION_MIN_CHARS } from "../contract/sites.js";
import { charCount } from "../contract/text.js";

// Header field values allow tab, space, visible ASCII and bytes >= 0x80; a tab is refused too, because
// parsers trim it at the ends and some fold it.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `description` cannot be the sites API's `X-Description`; undefined when it can. */
export function sdxDescriptionProblem(description: string): ErrorDetail | undefined {
  const chars = charCount(description);
  const field = "description";
  if (chars < SITE_DESCRIPTION_MIN_CHARS || chars > DESCRIPTION_MAX_CHARS) {
    return {
      field,
      message: `description travels as X-Description in the sdx API, which takes ${SITE_DESCRIPTION_MIN_CHARS} to ${DESCRIPTION_MAX_CHARS} characters (got ${chars})`,
    };
  }
  if (CONTROL.test(description)) {
    return {
      field,
      message:
        "description travels as the X-Description header in the sdx API: it cannot hold line breaks, tabs or other control characters",
    };
  }
  if (/^\s|\s$/.test(description)) {
    return {
      field,
      message:
        "description travels as the X-Description header in the sdx API: it cannot start or end with whitespace (HTTP drops it)",
    };
  }
  return undefined;
}

/** The sites API has no notify_url: its jobs are confirmed by reading the job list. */
export function sdxNotifyUrlProblem(notifyUrl: string | undefined): ErrorDetail | undefined {
  if (notifyUrl === undefined) return undefined;
  return { field: "notify_url", message: "sdx jobs have no notify_url; use --api spec or poll" };
}

/**
 * A header value holding the text's UTF-8 bytes. Headers are written one byte per character (Latin-1), so
 * "Zürich" as is would arrive as one byte 0xFC, which is not UTF-8; our service reads the bytes back as UTF-8.
 */
export function utf8HeaderValue(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}
