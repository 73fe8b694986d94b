import { createHash } from "node:crypto";
import { CLIENT_SCRIPT } from "./client-script.js";
import { STYLES } from "./styles.js";

/**
 * Static files under names that carry their content hash: a page always links the current version, so a
 * browser may keep each one for a year without asking again (Cache-Control immutable).
 */
export interface Asset {
  readonly path: string;
  readonly contentType: string;
  readonly body: string;
  readonly etag: string;
}

function asset(stem: string, extension: string, contentType: string, body: string): Asset {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 16);
  return { path: `/portal/assets/${stem}.${hash}.${extension}`, contentType, body, etag: `"${hash}"` };
}

export const SCRIPT_ASSET = asset("portal", "js", "text/javascript; charset=utf-8", CLIENT_SCRIPT);
export const STYLE_ASSET = asset("portal", "css", "text/css; charset=utf-8", STYLES);
export const ASSETS: readonly Asset[] = [SCRIPT_ASSET, STYLE_ASSET];
