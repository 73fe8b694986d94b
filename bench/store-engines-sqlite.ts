/**
 * The service's schema and its async submission translated to SQLite (Node's built-in `node:sqlite`, Node >=
 * 22.13), for bench/store-engines.bench.ts only: a measurement of what the embedded store would cost on SQLite,
 * not a second store. Same tables, columns, constraints and indexes as src/service/schema.ts (migrations
 * 1-5), the same statements in the same transaction as src/service/jobs/submit.ts, translated:
 * - uuid, text -> TEXT; timestamptz -> INTEGER (ms since the epoch); boolean -> INTEGER checked 0/1; jsonb ->
 *   TEXT checked by json_valid; STRICT tables, so a value of the wrong type is refused as PostgreSQL would.
 *   (A uuid column does not check the UUID's format; the service checks ids before they reach the store.)
 * - REFERENCES are enforced (`PRAGMA foreign_keys=ON`; SQLite's default is off).
 * - The trigram index on lower(description) (pg_trgm's GIN) is an FTS5 table with the trigram tokenizer
 *   (case-insensitive) kept by triggers: each job insert pays for it as PostgreSQL's insert pays for the GIN.
 * - $1.. parameters are ?1..; ON CONFLICT ... DO UPDATE ... WHERE and RETURNING exist in SQLite as in
 *   PostgreSQL, so the statements keep their shape.
 */
import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type { JobRequest } from "../src/contract/job.js";
import { isParsedToken, parseToken } from "../src/contract/token.js";
import { type Caller, hashSecret } from "../src/service/auth/directory.js";
import { GroupCommit } from "../src/service/database/group-commit.js";
import type { JobRow } from "../src/service/jobs/rows.js";
import { requestHash, type SubmitInput, type SubmitResult } from "../src/service/jobs/submit.js";

type SqlValue = null | number | bigint | string | Uint8Array;
type SqlRow = Record<string, SqlValue>;

/** The part of node:sqlite used here (@types/node 20 does not declare the module). */
interface StatementSync {
  get(...params: SqlValue[]): SqlRow | undefined;
  run(...params: SqlValue[]): unknown;
}
interface DatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): StatementSync;
  close(): void;
}

/**
 * How a commit reaches the disk.
 * - `full`: `synchronous=FULL`; SQLite fsyncs the WAL in every COMMIT, which blocks the event loop meanwhile.
 * - `group`: `synchronous=NORMAL` (a COMMIT writes the WAL without an fsync), and a submission is answered only
 *   after an fsync of the WAL file that began after its COMMIT: one fsync, on libuv's thread pool, covers every
 *   commit before it, and commits that arrive meanwhile share the next one. The scheme of the PGlite flusher
 *   (src/service/database/pglite-durability.ts): the same promise, that no 2xx precedes the fsync of its commit.
 * - `none`: `synchronous=NORMAL` and no fsync before the answer (the page cache, as PGlite by default): what
 *   SQLite costs apart from the disk.
 */
export type SqliteDurability = "full" | "group" | "none";

const MS_NOW = "(CAST(unixepoch('subsec') * 1000 AS INTEGER))";
const BOOL = (name: string, fallback?: 0 | 1) =>
  `${name} INTEGER NOT NULL${fallback === undefined ? "" : ` DEFAULT ${fallback}`} CHECK (${name} IN (0, 1))`;

/** src/service/schema.ts, migrations 1-5, in SQLite. */
const SCHEMA = `
CREATE TABLE teams (
  id TEXT PRIMARY KEY,
  customer_id TEXT NOT NULL,
  signing_secret TEXT,
  created_at INTEGER NOT NULL DEFAULT ${MS_NOW}
) STRICT;
CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL REFERENCES teams (id),
  secret_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL DEFAULT ${MS_NOW},
  revoked_at INTEGER
) STRICT;
CREATE TABLE routers (
  id TEXT PRIMARY KEY,
  team_id TEXT NOT NULL REFERENCES teams (id),
  name TEXT NOT NULL,
  ${BOOL("online", 1)},
  state TEXT CHECK (state IS NULL OR json_valid(state)),
  state_version INTEGER NOT NULL DEFAULT 0,
  next_seq INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL DEFAULT ${MS_NOW},
  removed_at INTEGER,
  device_host TEXT,
  device_port INTEGER CHECK (device_port BETWEEN 1 AND 65535),
  device_user TEXT,
  device_tls_fingerprint TEXT,
  device_tls_ca TEXT,
  ${BOOL("device_plaintext", 0)},
  device_password TEXT,
  device_key_id TEXT,
  ${BOOL("device_binary_backup", 0)},
  CONSTRAINT routers_device_whole CHECK (
    (device_host IS NULL AND device_user IS NULL AND device_password IS NULL AND device_key_id IS NULL
      AND device_tls_fingerprint IS NULL AND device_tls_ca IS NULL AND device_port IS NULL AND NOT device_plaintext)
    OR (device_host IS NOT NULL AND device_user IS NOT NULL AND device_password IS NOT NULL
      AND device_key_id IS NOT NULL
      AND (device_plaintext OR device_tls_fingerprint IS NOT NULL OR device_tls_ca IS NOT NULL))
  ),
  CONSTRAINT routers_device_binary_backup CHECK (device_host IS NOT NULL OR NOT device_binary_backup)
) STRICT;
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  router_id TEXT NOT NULL REFERENCES routers (id),
  team_id TEXT NOT NULL REFERENCES teams (id),
  seq_id INTEGER NOT NULL,
  token TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_id TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  description TEXT NOT NULL,
  script TEXT NOT NULL,
  ${BOOL("make_backup")},
  ${BOOL("express_execute")},
  ${BOOL("needs_acknowledgement")},
  notify_url TEXT,
  status TEXT NOT NULL,
  execution TEXT NOT NULL,
  claimed_by TEXT,
  created_at INTEGER NOT NULL,
  loaded_at INTEGER,
  started_at INTEGER,
  completed_at INTEGER,
  failed_at INTEGER,
  deleted_at INTEGER,
  error TEXT,
  backup_name TEXT,
  UNIQUE (router_id, seq_id)
) STRICT;
CREATE INDEX jobs_queue ON jobs (router_id, seq_id) WHERE execution <> 'done';
CREATE INDEX jobs_open ON jobs (router_id, seq_id) WHERE status IN ('pending', 'loaded', 'running');
CREATE VIRTUAL TABLE jobs_description_trgm USING fts5 (
  description, content = 'jobs', content_rowid = 'rowid', tokenize = 'trigram'
);
CREATE TRIGGER jobs_description_trgm_insert AFTER INSERT ON jobs BEGIN
  INSERT INTO jobs_description_trgm (rowid, description) VALUES (new.rowid, new.description);
END;
CREATE TRIGGER jobs_description_trgm_delete AFTER DELETE ON jobs BEGIN
  INSERT INTO jobs_description_trgm (jobs_description_trgm, rowid, description)
    VALUES ('delete', old.rowid, old.description);
END;
CREATE TRIGGER jobs_description_trgm_update AFTER UPDATE OF description ON jobs BEGIN
  INSERT INTO jobs_description_trgm (jobs_description_trgm, rowid, description)
    VALUES ('delete', old.rowid, old.description);
  INSERT INTO jobs_description_trgm (rowid, description) VALUES (new.rowid, new.description);
END;
CREATE TABLE idempotency_keys (
  team_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  job_id TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (team_id, idempotency_key)
) STRICT;
CREATE TABLE outbox (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs (id),
  seq INTEGER NOT NULL,
  team_id TEXT NOT NULL,
  url TEXT NOT NULL,
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  created_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  locked_until INTEGER,
  delivered_at INTEGER,
  abandoned_at INTEGER,
  last_error TEXT,
  UNIQUE (job_id, seq)
) STRICT;
CREATE INDEX outbox_pending ON outbox (next_attempt_at) WHERE delivered_at IS NULL AND abandoned_at IS NULL;
CREATE TABLE instances (
  id TEXT PRIMARY KEY,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
) STRICT;
CREATE TABLE rate_grants (
  key TEXT NOT NULL,
  granted_at INTEGER NOT NULL
) STRICT;
CREATE INDEX rate_grants_key ON rate_grants (key, granted_at);
CREATE TABLE portal_sessions (
  id_hash TEXT PRIMARY KEY,
  team_id TEXT REFERENCES teams (id),
  token_id TEXT REFERENCES tokens (id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  CHECK ((team_id IS NULL) = (token_id IS NULL))
) STRICT;
CREATE INDEX portal_sessions_expiry ON portal_sessions (expires_at);
CREATE TABLE portal_sign_in_codes (
  code_hash TEXT PRIMARY KEY,
  team_id TEXT REFERENCES teams (id),
  token_id TEXT REFERENCES tokens (id),
  expires_at INTEGER NOT NULL,
  CHECK ((team_id IS NULL) = (token_id IS NULL))
) STRICT;
`;

const bool = (value: boolean): number => (value ? 1 : 0);
const ms = (value: Date): number => value.getTime();
const date = (value: SqlValue | undefined): Date | null =>
  value === null || value === undefined ? null : new Date(Number(value));

/** A jobs row as the service's code reads it from PostgreSQL (Dates and booleans). */
function jobRow(row: SqlRow): JobRow {
  return {
    ...(row as unknown as JobRow),
    seq_id: Number(row.seq_id),
    make_backup: row.make_backup === 1,
    express_execute: row.express_execute === 1,
    needs_acknowledgement: row.needs_acknowledgement === 1,
    created_at: date(row.created_at) as Date,
    loaded_at: date(row.loaded_at),
    started_at: date(row.started_at),
    completed_at: date(row.completed_at),
    failed_at: date(row.failed_at),
    deleted_at: date(row.deleted_at),
  };
}

export interface SqliteSubmissionStore {
  /** src/service/auth/directory.ts `authenticate`: the caller of a known, unrevoked token, or undefined. */
  authenticate(token: string): Promise<Caller | undefined>;
  submit(input: SubmitInput): Promise<SubmitResult>;
  seed(team: { id: string; tokenId: string; secret: string; routerId: string }): void;
  close(): Promise<void>;
}

export async function openSqlite(path: string, durability: SqliteDurability): Promise<SqliteSubmissionStore> {
  const { DatabaseSync } = createRequire(import.meta.url)("node:sqlite") as {
    DatabaseSync: new (path: string) => DatabaseSync;
  };
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(`PRAGMA synchronous = ${process.env.SQ_SYNC ?? (durability === "full" ? "FULL" : "NORMAL")}`);
  db.exec("PRAGMA foreign_keys = ON");
  db.exec(`BEGIN IMMEDIATE; ${SCHEMA} COMMIT`);

  // The WAL exists once the schema is written; its folder entry is synced once, its contents by each flush.
  const wal = await open(`${path}-wal`, "r");
  const folder = await open(dirname(path), "r");
  await folder.sync();
  await folder.close();
  let written = 0;
  let flushed = 0;
  const group = new GroupCommit<undefined, undefined>(async (items) => {
    const covering = written;
    await wal.sync();
    flushed = Math.max(flushed, covering);
    return items.map(() => undefined);
  }, Number.POSITIVE_INFINITY);
  /** `group`: resolves once every commit so far is on disk (`full`: SQLite synced in COMMIT; `none`: never). */
  const durable = (): Promise<void> =>
    durability !== "group" || flushed >= written ? Promise.resolve() : group.submit(undefined);

  const statements = {
    token: db.prepare("SELECT secret_hash FROM tokens WHERE id = ?1 AND team_id = ?2 AND revoked_at IS NULL"),
    takeSeq: db.prepare(
      `UPDATE routers SET next_seq = next_seq + 1
       WHERE id = ?1 AND team_id = ?2 AND removed_at IS NULL RETURNING next_seq - 1 AS seq`,
    ),
    key: db.prepare(
      `INSERT INTO idempotency_keys (team_id, idempotency_key, job_id, request_hash, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5)
       ON CONFLICT (team_id, idempotency_key) DO UPDATE
         SET job_id = excluded.job_id, request_hash = excluded.request_hash, created_at = excluded.created_at
         WHERE idempotency_keys.created_at < ?6
       RETURNING job_id`,
    ),
    job: db.prepare(
      `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
         description, script, make_backup, express_execute, needs_acknowledgement, notify_url, status, execution,
         created_at, completed_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, 'queued', ?16, ?17)
       RETURNING *`,
    ),
    replay: db.prepare(
      `SELECT j.*, k.request_hash AS key_hash FROM idempotency_keys k JOIN jobs j ON j.id = k.job_id
       WHERE k.team_id = ?1 AND k.idempotency_key = ?2`,
    ),
    giveBackSeq: db.prepare("UPDATE routers SET next_seq = next_seq - 1 WHERE id = ?1"),
  };

  /** src/service/jobs/submit.ts `insertJob`, statement for statement (notify_url's outbox row aside: unused). */
  function insertJob(input: SubmitInput, hash: string, jobId: string, token: string): SubmitResult {
    const seq = statements.takeSeq.get(input.routerId, input.teamId)?.seq;
    if (seq === undefined) return { kind: "router_not_found" };
    const key = statements.key.get(
      input.teamId,
      input.idempotencyKey,
      jobId,
      hash,
      ms(input.now),
      ms(input.now) - input.idempotencyTtlMs,
    );
    if (key === undefined) {
      const replayed = statements.replay.get(input.teamId, input.idempotencyKey);
      statements.giveBackSeq.run(input.routerId);
      if (!replayed || replayed.key_hash !== hash) return { kind: "conflict" };
      return { kind: "replayed", job: jobRow(replayed) };
    }
    const request: JobRequest = input.request;
    if (request.notify_url)
      throw new Error("the bench submits no notify_url (its outbox row is not translated)");
    const immediate = !request.needs_acknowledgement;
    const row = statements.job.get(
      jobId,
      input.routerId,
      input.teamId,
      seq,
      token,
      input.idempotencyKey,
      input.requestId,
      hash,
      request.description,
      request.script,
      bool(request.make_backup),
      bool(request.express_execute),
      bool(request.needs_acknowledgement),
      null,
      immediate ? "completed" : "pending",
      ms(input.now),
      immediate ? ms(input.now) : null,
    );
    return { kind: "created", job: jobRow(row as SqlRow) };
  }

  return {
    async authenticate(token) {
      const parsed = parseToken(token);
      if (!isParsedToken(parsed)) return undefined;
      const row = statements.token.get(parsed.tokenId, parsed.teamId);
      // As the PGlite store: a read is answered once the writes before it are on disk.
      await durable();
      const stored = Buffer.from(
        typeof row?.secret_hash === "string" ? row.secret_hash : "0".repeat(64),
        "hex",
      );
      const equal = timingSafeEqual(stored, Buffer.from(hashSecret(parsed.secret), "hex"));
      return equal && row !== undefined ? { tokenId: parsed.tokenId, teamId: parsed.teamId } : undefined;
    },
    async submit(input) {
      const hash = requestHash(input.routerId, input.request);
      const jobId = randomUUID();
      const token = randomBytes(24).toString("base64url");
      db.exec("BEGIN IMMEDIATE");
      let result: SubmitResult;
      try {
        result = insertJob(input, hash, jobId, token);
        db.exec("COMMIT");
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
      written++;
      await durable();
      return result;
    },
    seed(team) {
      db.prepare("INSERT INTO teams (id, customer_id) VALUES (?1, ?1)").run(team.id);
      db.prepare("INSERT INTO tokens (id, team_id, secret_hash) VALUES (?1, ?2, ?3)").run(
        team.tokenId,
        team.id,
        hashSecret(team.secret),
      );
      db.prepare("INSERT INTO routers (id, team_id, name) VALUES (?1, ?2, 'edge')").run(
        team.routerId,
        team.id,
      );
      written++;
    },
    async close() {
      await durable();
      await wal.close();
      db.close();
    },
  };
}
