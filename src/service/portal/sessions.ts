import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { revoking } from "../auth/revocations.js";
import type { Queryable } from "../database/database.js";

/**
 * Portal sessions, server-side. The browser holds a random id; the database holds only its SHA-256, so a
 * copy of the table signs nobody in. A team session belongs to the token that opened it and ends when that
 * token is revoked; the admin's session (team null) sees every team.
 */
export const SESSION_LIFETIME_MS = 8 * 3_600_000;
/** A one-time sign-in code (the demo's link) is good for this long, once. */
export const SIGN_IN_CODE_LIFETIME_MS = 5 * 60_000;

export interface PortalSession {
  /** The random id from the cookie (never stored). */
  readonly id: string;
  /** null: the admin's all-teams view. */
  readonly teamId: string | null;
  /** The team's name, where it has one (migration 10): what the portal's header shows. */
  readonly teamName: string | null;
  readonly expiresAt: Date;
}

export interface SessionOwner {
  readonly teamId: string | null;
  readonly tokenId: string | null;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** What the database keeps of a session id (`id_hash`), and what names a session anywhere else (limits). */
export const sessionIdHash = sha256;

/** 32 random bytes: unguessable, and URL/cookie-safe as base64url. */
export const randomId = (): string => randomBytes(32).toString("base64url");

export async function createSession(db: Queryable, owner: SessionOwner, now: Date): Promise<PortalSession> {
  const id = randomId();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  // Expired rows go when someone signs in: no sweeper needed, and the table stays as small as its live sessions.
  await db.query("DELETE FROM portal_sessions WHERE expires_at <= $1", [now]);
  const { rows } = await db.query<{ team_name: string | null }>(
    `INSERT INTO portal_sessions (id_hash, team_id, token_id, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5) RETURNING (SELECT name FROM teams WHERE id = $2) AS team_name`,
    [sha256(id), owner.teamId, owner.tokenId, now, expiresAt],
  );
  return { id, teamId: owner.teamId, teamName: rows[0]?.team_name ?? null, expiresAt };
}

/** The live session of a cookie value: unexpired, and its token (if a team's) not revoked. */
export async function findSession(db: Queryable, id: string, now: Date): Promise<PortalSession | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
  const { rows } = await db.query<{ team_id: string | null; team_name: string | null; expires_at: Date }>(
    `SELECT s.team_id, tm.name AS team_name, s.expires_at FROM portal_sessions s
     LEFT JOIN tokens t ON t.id = s.token_id
     LEFT JOIN teams tm ON tm.id = s.team_id
     WHERE s.id_hash = $1 AND s.expires_at > $2 AND (s.token_id IS NULL OR t.revoked_at IS NULL)`,
    [sha256(id), now],
  );
  const row = rows[0];
  return row ? { id, teamId: row.team_id, teamName: row.team_name, expiresAt: row.expires_at } : undefined;
}

/** Signs a session out: a revocation (revocations.ts), so that no memory of it is trusted afterwards. */
export async function deleteSession(db: Queryable, id: string): Promise<void> {
  await revoking(() => db.query("DELETE FROM portal_sessions WHERE id_hash = $1", [sha256(id)]));
}

/**
 * The CSRF token of a session's forms: derived from the session id, so it is bound to that session and needs
 * no storage, and a page of one session is useless to another.
 */
export function csrfToken(sessionId: string): string {
  return createHmac("sha256", sessionId).update("routerjobs-portal-csrf").digest("base64url");
}

/**
 * Timing-safe equality of two strings an attacker may choose one of: their SHA-256 digests have one length
 * whatever the inputs', so the comparison reveals neither the length nor a prefix.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(Buffer.from(sha256(given), "hex"), Buffer.from(sha256(expected), "hex"));
}

/**
 * A short-lived, single-use sign-in code for a link (the demo prints one): never the token itself, and
 * worthless once used or after `SIGN_IN_CODE_LIFETIME_MS`.
 */
export async function mintSignInCode(db: Queryable, owner: SessionOwner, now: Date): Promise<string> {
  const code = randomId();
  await db.query(
    "INSERT INTO portal_sign_in_codes (code_hash, team_id, token_id, expires_at) VALUES ($1, $2, $3, $4)",
    [sha256(code), owner.teamId, owner.tokenId, new Date(now.getTime() + SIGN_IN_CODE_LIFETIME_MS)],
  );
  return code;
}

/** Uses a code up: the owner it was minted for, or undefined when unknown, used or expired. */
export async function redeemSignInCode(
  db: Queryable,
  code: string,
  now: Date,
): Promise<SessionOwner | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(code)) return undefined;
  // DELETE ... RETURNING: of two concurrent redemptions exactly one gets the row.
  const { rows } = await db.query<{ team_id: string | null; token_id: string | null; expires_at: Date }>(
    "DELETE FROM portal_sign_in_codes WHERE code_hash = $1 RETURNING team_id, token_id, expires_at",
    [sha256(code)],
  );
  const row = rows[0];
  if (!row || row.expires_at <= now) return undefined;
  return { teamId: row.team_id, tokenId: row.token_id };
}
