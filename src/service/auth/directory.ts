import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { TOKEN_SECRET_CHARS } from "../../contract/limits.js";
import { isParsedToken, parseToken } from "../../contract/token.js";
import { UsageError } from "../../errors.js";
import type { Database, Queryable } from "../database/database.js";
import { deleteJobTx } from "../jobs/lifecycle.js";
import type { JobRow } from "../jobs/rows.js";
import { revoking } from "./revocations.js";

/** Teams, their API tokens and their routers: the records the spec leaves "not shown". */

export function hashSecret(secret: string): string {
  // The secret is 62 random alphanumerics (~369 bits): a fast hash is enough, no password stretching needed.
  return createHash("sha256").update(secret).digest("hex");
}

export interface Caller {
  readonly tokenId: string;
  readonly teamId: string;
}

/** The team a token belongs to, or undefined for a malformed, unknown or revoked token. */
export async function authenticate(db: Queryable, token: string): Promise<Caller | undefined> {
  const parsed = parseToken(token);
  if (!isParsedToken(parsed)) return undefined;
  const { rows } = await db.query<{ secret_hash: string }>(
    "SELECT secret_hash FROM tokens WHERE id = $1 AND team_id = $2 AND revoked_at IS NULL",
    [parsed.tokenId, parsed.teamId],
  );
  const stored = Buffer.from(rows[0]?.secret_hash ?? "0".repeat(64), "hex");
  const given = Buffer.from(hashSecret(parsed.secret), "hex");
  // Compare even when the token id is unknown, so that timing does not tell which token ids exist.
  const equal = timingSafeEqual(stored, given);
  return equal && rows.length > 0 ? { tokenId: parsed.tokenId, teamId: parsed.teamId } : undefined;
}

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** 62 alphanumerics, each equally likely: the secret part of a token in the spec's format. */
export function generateTokenSecret(): string {
  let secret = "";
  while (secret.length < TOKEN_SECRET_CHARS) {
    for (const byte of randomBytes(TOKEN_SECRET_CHARS)) {
      // 248 = 4 * 62: rejecting the top bytes keeps every character equally likely.
      if (byte < 248 && secret.length < TOKEN_SECRET_CHARS) secret += ALPHANUMERIC[byte % 62];
    }
  }
  return secret;
}

export async function ensureTeam(
  db: Queryable,
  team: { id: string; customerId?: string; signingSecret?: string | null; name?: string | undefined },
): Promise<void> {
  // A name or secret left out keeps the one the team has: a token added later does not unname the team.
  // Without a name the statement names no name column, so that a seed can still be applied to a database
  // migrated only up to a version before teams had names (the migrations' own tests do).
  const named = team.name !== undefined;
  await db.query(
    `INSERT INTO teams (id, customer_id, signing_secret${named ? ", name" : ""})
     VALUES ($1, $2, $3${named ? ", $4" : ""})
     ON CONFLICT (id) DO UPDATE SET signing_secret = coalesce(EXCLUDED.signing_secret, teams.signing_secret)${
       named ? ", name = EXCLUDED.name" : ""
     }`,
    [team.id, team.customerId ?? team.id, team.signingSecret ?? null, ...(named ? [team.name] : [])],
  );
}

/** Stores a full token (seed files); an existing token id keeps its secret. */
/**
 * Creates the token, or finds it already there. False when its id is taken by another team's token or by one
 * with another secret: that token would not authenticate, and must not pass for seeded.
 */
export async function ensureToken(db: Queryable, token: string): Promise<boolean> {
  const parsed = parseToken(token);
  if (!isParsedToken(parsed)) throw new UsageError(`token ${parsed.error}`);
  const { rows } = await db.query(
    `INSERT INTO tokens (id, team_id, secret_hash) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id
       WHERE tokens.team_id = EXCLUDED.team_id AND tokens.secret_hash = EXCLUDED.secret_hash
     RETURNING id`,
    [parsed.tokenId, parsed.teamId, hashSecret(parsed.secret)],
  );
  return rows.length > 0;
}

/** A new token of the team in the spec's format, `<token id>:<team id>:<secret>` (not yet stored). */
export function newToken(teamId: string): string {
  return `${randomUUID()}:${teamId}:${generateTokenSecret()}`;
}

/** Creates a token for a team and returns it: the only time the secret exists outside the caller's hands. */
export async function createToken(db: Queryable, teamId: string): Promise<string> {
  const token = newToken(teamId);
  await ensureToken(db, token);
  return token;
}

export async function revokeToken(db: Queryable, tokenId: string, now: Date): Promise<boolean> {
  const { rows } = await revoking(() =>
    db.query("UPDATE tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id", [
      tokenId,
      now,
    ]),
  );
  return rows.length > 0;
}

export interface RouterRow {
  id: string;
  team_id: string;
  name: string;
  online: boolean;
  state_version: number;
}

/** A router of the caller's team; another team's router is indistinguishable from an unknown one. */
export async function findRouter(
  db: Queryable,
  teamId: string,
  routerId: string,
): Promise<RouterRow | undefined> {
  const { rows } = await db.query<RouterRow>(
    `SELECT id, team_id, name, online, state_version FROM routers
     WHERE id = $1 AND team_id = $2 AND removed_at IS NULL`,
    [routerId, teamId],
  );
  return rows[0];
}

/** The routers of a team, by name (then id, for a stable order among routers of one name). */
export async function teamRouters(db: Queryable, teamId: string): Promise<RouterRow[]> {
  const { rows } = await db.query<RouterRow>(
    `SELECT id, team_id, name, online, state_version FROM routers
     WHERE team_id = $1 AND removed_at IS NULL ORDER BY name, id`,
    [teamId],
  );
  return rows;
}

/** A router as the router cycle needs it (any team); undefined once removed. */
export async function routerForRun(db: Queryable, routerId: string): Promise<RouterRow | undefined> {
  const { rows } = await db.query<RouterRow>(
    "SELECT id, team_id, name, online, state_version FROM routers WHERE id = $1 AND removed_at IS NULL",
    [routerId],
  );
  return rows[0];
}

/** The router's saved state (what the back end's `snapshot` returned last), or undefined. */
export async function routerState(db: Queryable, routerId: string): Promise<unknown> {
  const { rows } = await db.query<{ state: unknown }>("SELECT state FROM routers WHERE id = $1", [routerId]);
  return rows[0]?.state;
}

/** Adds a router (or renames an existing one of the same team); returns false if the id is another team's. */
export async function ensureRouter(
  db: Queryable,
  router: { id: string; teamId: string; name: string },
): Promise<boolean> {
  const { rows } = await db.query(
    `INSERT INTO routers (id, team_id, name) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name WHERE routers.team_id = EXCLUDED.team_id
       AND routers.removed_at IS NULL
     RETURNING id`,
    [router.id, router.teamId, router.name],
  );
  return rows.length > 0;
}

export async function setRouterOnline(db: Queryable, routerId: string, online: boolean): Promise<boolean> {
  const { rows } = await db.query(
    "UPDATE routers SET online = $2 WHERE id = $1 AND removed_at IS NULL RETURNING id",
    [routerId, online],
  );
  return rows.length > 0;
}

/** Removes a router: every job that is not terminal becomes `deleted`, with its notification. */
export async function removeRouter(db: Database, routerId: string, now: Date): Promise<JobRow[] | undefined> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query(
      "UPDATE routers SET removed_at = $2 WHERE id = $1 AND removed_at IS NULL RETURNING id",
      [routerId, now],
    );
    if (rows.length === 0) return undefined;
    // Completed-at-submission jobs still waiting for the router are simply not delivered any more.
    await tx.query("UPDATE jobs SET execution = 'done' WHERE router_id = $1 AND execution = 'queued'", [
      routerId,
    ]);
    const open = await tx.query<{ id: string }>(
      "SELECT id FROM jobs WHERE router_id = $1 AND status IN ('pending', 'loaded', 'running') ORDER BY seq_id",
      [routerId],
    );
    const deleted: JobRow[] = [];
    for (const { id } of open.rows) {
      const job = await deleteJobTx(tx, id, now);
      if (job) deleted.push(job);
    }
    return deleted;
  });
}
