import { createHash } from "node:crypto";
import * as z from "zod";
import { UUID_PATTERN } from "./ids.js";
import { TOKEN_SECRET_CHARS } from "./limits.js";

/** `<token_id>:<team_id>:<secret>`: two UUIDs and 62 alphanumerics (spec, Authentication 2). */
const TOKEN_PATTERN = new RegExp(
  `^(${UUID_PATTERN.source.slice(1, -1)}):(${UUID_PATTERN.source.slice(1, -1)}):([A-Za-z0-9]{${TOKEN_SECRET_CHARS}})$`,
);

export interface ParsedToken {
  readonly tokenId: string;
  readonly teamId: string;
  readonly secret: string;
}

/**
 * Parses a bearer token. The error message never contains the token: it says which part is wrong.
 */
export function parseToken(token: string): ParsedToken | { error: string } {
  const match = TOKEN_PATTERN.exec(token);
  if (match) return { tokenId: match[1] as string, teamId: match[2] as string, secret: match[3] as string };
  const parts = token.split(":");
  if (parts.length !== 3) return { error: `must have three parts separated by ":" (got ${parts.length})` };
  const [tokenId, teamId, secret] = parts as [string, string, string];
  if (!UUID_PATTERN.test(tokenId)) return { error: "first part must be a lowercase UUID" };
  if (!UUID_PATTERN.test(teamId)) return { error: "second part must be a lowercase UUID" };
  if (!/^[A-Za-z0-9]*$/.test(secret)) return { error: "last part must be alphanumeric" };
  return { error: `last part must be exactly ${TOKEN_SECRET_CHARS} characters (got ${secret.length})` };
}

export function isParsedToken(value: ParsedToken | { error: string }): value is ParsedToken {
  return !("error" in value);
}

/** Validates the token format without ever echoing the value. */
export const tokenSchema = z.string().superRefine((value, ctx) => {
  const parsed = parseToken(value);
  if (!isParsedToken(parsed)) ctx.addIssue({ code: "custom", message: parsed.error, input: "<redacted>" });
});

/** Stable, non-reversible identifier of a token: names shared state (rate budget files) without the secret. */
export function tokenFingerprint(token: string): string {
  return createHash("sha256").update(token).digest("hex").slice(0, 32);
}

/** What a token looks like in logs: the token id only, never the secret. */
export function redactToken(token: string): string {
  const parsed = parseToken(token);
  return isParsedToken(parsed) ? `${parsed.tokenId}:***` : "***";
}

/** Bound of a client-side token: far above a JWT or a console key, far below what a server takes in a header. */
export const BEARER_TOKEN_MAX_CHARS = 8192;

/**
 * Client side only: whether a value can travel as `Authorization: Bearer <value>` at all. The public service
 * takes the spec's token, OAuth JWTs and console API keys of an undocumented format, so the client accepts
 * any visible ASCII; our service keeps `parseToken`'s format for its own tokens. Returns the problem (never the
 * value, at most where it is), or undefined when the value is usable.
 */
export function bearerTokenProblem(token: unknown): string | undefined {
  if (typeof token !== "string") return "must be a string";
  if (token.length === 0) return "is empty";
  if (token.length > BEARER_TOKEN_MAX_CHARS)
    return `must be at most ${BEARER_TOKEN_MAX_CHARS} characters (got ${token.length})`;
  for (let index = 0; index < token.length; index++) {
    const code = token.charCodeAt(index);
    if (code > 0x7e && code !== 0x7f)
      return `must be ASCII only (a character outside ASCII at position ${index + 1})`;
    if (code <= 0x20 || code === 0x7f)
      return `must not contain whitespace or control characters (one at position ${index + 1})`;
  }
  return undefined;
}
