import type { Migration } from "./database/migrations.js";

/**
 * The service's tables. One set of SQL for PGlite and PostgreSQL. Times are written by the service (JS clock)
 * rather than `now()`, so that every instance and the tests agree on one source of time.
 */
export const SERVICE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "teams, tokens, routers, jobs, idempotency keys, outbox, instances, rate grants",
    sql: `
CREATE TABLE teams (
  id uuid PRIMARY KEY,
  customer_id uuid NOT NULL,
  signing_secret text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE tokens (
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL REFERENCES teams (id),
  secret_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE TABLE routers (
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL REFERENCES teams (id),
  name text NOT NULL,
  online boolean NOT NULL DEFAULT true,
  state jsonb,
  state_version integer NOT NULL DEFAULT 0,
  next_seq integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  removed_at timestamptz
);
CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  router_id uuid NOT NULL REFERENCES routers (id),
  team_id uuid NOT NULL REFERENCES teams (id),
  seq_id integer NOT NULL,
  token text NOT NULL,
  idempotency_key uuid NOT NULL,
  request_id uuid NOT NULL,
  request_hash text NOT NULL,
  description text NOT NULL,
  script text NOT NULL,
  make_backup boolean NOT NULL,
  express_execute boolean NOT NULL,
  needs_acknowledgement boolean NOT NULL,
  notify_url text,
  status text NOT NULL,
  execution text NOT NULL,
  claimed_by uuid,
  created_at timestamptz NOT NULL,
  loaded_at timestamptz,
  started_at timestamptz,
  completed_at timestamptz,
  failed_at timestamptz,
  deleted_at timestamptz,
  error text,
  backup_name text,
  UNIQUE (router_id, seq_id)
);
CREATE INDEX jobs_queue ON jobs (router_id, seq_id) WHERE execution <> 'done';
CREATE TABLE idempotency_keys (
  team_id uuid NOT NULL,
  idempotency_key uuid NOT NULL,
  job_id uuid NOT NULL,
  request_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (team_id, idempotency_key)
);
CREATE TABLE outbox (
  id uuid PRIMARY KEY,
  job_id uuid NOT NULL REFERENCES jobs (id),
  seq integer NOT NULL,
  team_id uuid NOT NULL,
  url text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  locked_until timestamptz,
  delivered_at timestamptz,
  abandoned_at timestamptz,
  last_error text,
  UNIQUE (job_id, seq)
);
CREATE INDEX outbox_pending ON outbox (next_attempt_at) WHERE delivered_at IS NULL AND abandoned_at IS NULL;
CREATE TABLE instances (
  id uuid PRIMARY KEY,
  started_at timestamptz NOT NULL,
  heartbeat_at timestamptz NOT NULL
);
CREATE TABLE rate_grants (
  key text NOT NULL,
  granted_at timestamptz NOT NULL
);
CREATE INDEX rate_grants_key ON rate_grants (key, granted_at);
`,
  },
  {
    version: 2,
    description: "routers that are real devices: their API endpoint, the password encrypted",
    // Plain columns rather than one jsonb: each is typed and checked here. No password column holds clear
    // text: device_password is AES-256-GCM (router-secrets.ts) under the key device_key_id names.
    sql: `
ALTER TABLE routers ADD COLUMN device_host text;
ALTER TABLE routers ADD COLUMN device_port integer CHECK (device_port BETWEEN 1 AND 65535);
ALTER TABLE routers ADD COLUMN device_user text;
ALTER TABLE routers ADD COLUMN device_tls_fingerprint text;
ALTER TABLE routers ADD COLUMN device_tls_ca text;
ALTER TABLE routers ADD COLUMN device_plaintext boolean NOT NULL DEFAULT false;
ALTER TABLE routers ADD COLUMN device_password text;
ALTER TABLE routers ADD COLUMN device_key_id text;
ALTER TABLE routers ADD CONSTRAINT routers_device_whole CHECK (
  (device_host IS NULL AND device_user IS NULL AND device_password IS NULL AND device_key_id IS NULL
    AND device_tls_fingerprint IS NULL AND device_tls_ca IS NULL AND device_port IS NULL AND NOT device_plaintext)
  OR (device_host IS NOT NULL AND device_user IS NOT NULL AND device_password IS NOT NULL
    AND device_key_id IS NOT NULL
    AND (device_plaintext OR device_tls_fingerprint IS NOT NULL OR device_tls_ca IS NOT NULL))
);
`,
  },
  {
    version: 3,
    description: "portal sessions and one-time sign-in codes; an index for a router's open jobs",
    // Only a SHA-256 of a session id or a code is stored: a leaked table signs nobody in. team_id is null for
    // the admin's all-teams view; token_id ties a team session to its token, so revoking the token ends it.
    sql: `
CREATE TABLE portal_sessions (
  id_hash text PRIMARY KEY,
  team_id uuid REFERENCES teams (id),
  token_id uuid REFERENCES tokens (id),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  CHECK ((team_id IS NULL) = (token_id IS NULL))
);
CREATE INDEX portal_sessions_expiry ON portal_sessions (expires_at);
CREATE TABLE portal_sign_in_codes (
  code_hash text PRIMARY KEY,
  team_id uuid REFERENCES teams (id),
  token_id uuid REFERENCES tokens (id),
  expires_at timestamptz NOT NULL,
  CHECK ((team_id IS NULL) = (token_id IS NULL))
);
CREATE INDEX jobs_open ON jobs (router_id, seq_id) WHERE status IN ('pending', 'loaded', 'running');
`,
  },
  {
    version: 4,
    description: "device routers: a binary backup beside the export when configured",
    // Off for every existing router: a binary backup costs disk on the router, so it is the operator's choice.
    // Only a device takes one (a simulated router's backup is binary already), hence the check.
    sql: `
ALTER TABLE routers ADD COLUMN device_binary_backup boolean NOT NULL DEFAULT false;
ALTER TABLE routers ADD CONSTRAINT routers_device_binary_backup CHECK (device_host IS NOT NULL OR NOT device_binary_backup);
`,
  },
  {
    version: 5,
    description: "a trigram index on job descriptions, for the job list's text filter",
    // `routerjobs apply` finds its attempts by a marker in the description (`text=[rj:tag-`): without an
    // index each lookup read every job of the router. pg_trgm is a contrib extension, trusted since
    // PostgreSQL 13 (a database owner may create it); a server without it keeps working, filtering by a scan.
    // One line: the migration runner splits statements at a `;` that ends a line.
    sql: `
DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS pg_trgm; CREATE INDEX jobs_description_trgm ON jobs USING gin (lower(description) gin_trgm_ops); EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'pg_trgm is not available (%): the text filter of the job list reads every job of the router', SQLERRM; END $$;
`,
  },
  {
    version: 6,
    description: "an index of the attempt markers' resource tags in job descriptions, for apply's lookups",
    // apply's lookups and polls filter by text that starts a marker (`[rj:<tag>-`, job-page.ts). In the
    // trigram index `rj` is a word of every job routerjobs submitted, on every router, so each lookup walked
    // all their entries, most of its time, and more as any router's history grows; through this index a
    // lookup reads its own tag's entries only (figures: docs/performance.md). What it holds: every
    // `[rj:<tag>-` in a description, lowercased. The tag's characters (letters, digits) leave no room for one
    // match to hide another, so a description holding `[rj:abcd-` always lists `abcd`, and the filter may ask
    // the index for it (the text's LIKE still decides). Only descriptions with `[rj:` are in it (partial: a
    // job submitted without a marker pays nothing); one with a marker pays the function and the index's
    // insert when it is submitted (less than the lookups sent for it save), the insert kept in place
    // (`fastupdate` off: the embedded store has no autovacuum to empty a pending list, which every search
    // would read through). The function reads one marker without a query (the usual case: apply's marker ends
    // the description) and only pg_catalog's functions, all that an index expression is given when PostgreSQL
    // maintains an index. One line each: the runner splits at a `;` that ends a line.
    sql: `
CREATE FUNCTION rj_marker_tags(description text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$ DECLARE lowered text := lower(description); first int := strpos(lowered, '[rj:'); tag text; BEGIN IF first = 0 THEN RETURN '{}'; END IF; IF strpos(substr(lowered, first + 4), '[rj:') = 0 THEN tag := substring(substr(lowered, first) from '^\\[rj:([a-z0-9]+)-'); RETURN CASE WHEN tag IS NULL THEN '{}'::text[] ELSE ARRAY[tag] END; END IF; RETURN ARRAY(SELECT m[1] FROM regexp_matches(lowered, '\\[rj:([a-z0-9]+)-', 'g') AS m); END $$;
CREATE INDEX jobs_marker_tags ON jobs USING gin (rj_marker_tags(description)) WITH (fastupdate = off) WHERE strpos(lower(description), '[rj:') > 0;
`,
  },
  {
    version: 7,
    description: "the outbox: a notification waiting for an earlier one of its job is out of the due index",
    // A job's later states wait until its earlier one is delivered or abandoned. They used to wait in the due
    // index too, due since queued: each round of the notifier walked every one of them to find the job's first
    // still undelivered, so the jobs of a receiver that is down (each with states waiting behind the one in
    // back-off) kept the store's thread busy with nothing to send. `blocked` takes them out
    // of `outbox_due`; the store keeps it true: a row is queued blocked when an earlier one of its job is
    // undelivered, and the next one is freed when the earlier one is delivered or abandoned. The queuing locks
    // that earlier row (FOR SHARE) and the freeing runs after the earlier row's update, each statement of a
    // trigger on its own snapshot: on PostgreSQL a delivery marked while a later state is queued either waits
    // for the queuing and then sees the new row, or is seen by it, so no row stays blocked behind a delivered
    // one. One line each: the migration runner splits statements at a `;` that ends a line.
    sql: `
ALTER TABLE outbox ADD COLUMN blocked boolean NOT NULL DEFAULT false;
UPDATE outbox o SET blocked = true WHERE o.delivered_at IS NULL AND o.abandoned_at IS NULL AND EXISTS (SELECT FROM outbox e WHERE e.job_id = o.job_id AND e.seq < o.seq AND e.delivered_at IS NULL AND e.abandoned_at IS NULL);
DROP INDEX outbox_pending;
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE delivered_at IS NULL AND abandoned_at IS NULL AND NOT blocked;
CREATE FUNCTION rj_outbox_wait_for_earlier() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM 1 FROM outbox WHERE job_id = NEW.job_id AND seq < NEW.seq AND delivered_at IS NULL AND abandoned_at IS NULL ORDER BY seq LIMIT 1 FOR SHARE; NEW.blocked := FOUND; RETURN NEW; END $$;
CREATE TRIGGER outbox_wait_for_earlier BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION rj_outbox_wait_for_earlier();
CREATE FUNCTION rj_outbox_free_next() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE outbox SET blocked = false WHERE id = (SELECT id FROM outbox WHERE job_id = NEW.job_id AND delivered_at IS NULL AND abandoned_at IS NULL ORDER BY seq LIMIT 1) AND blocked; RETURN NULL; END $$;
CREATE TRIGGER outbox_free_next AFTER UPDATE OF delivered_at, abandoned_at ON outbox FOR EACH ROW WHEN (OLD.delivered_at IS NULL AND OLD.abandoned_at IS NULL AND (NEW.delivered_at IS NOT NULL OR NEW.abandoned_at IS NOT NULL)) EXECUTE FUNCTION rj_outbox_free_next();
`,
  },
  {
    version: 8,
    description:
      "routers that are real devices: the transport the service drives each over (the API or REST)",
    // NULL is the API, as for every device added before; only a device's row may name another.
    sql: `
ALTER TABLE routers ADD COLUMN device_transport text CONSTRAINT routers_device_transport CHECK (device_transport IS NULL OR (device_transport = 'rest' AND device_host IS NOT NULL));
`,
  },
  {
    version: 9,
    description:
      "routers that are real devices: SSH as a transport, verified by the host key's pinned fingerprint",
    // An SSH device has no certificate: its pinned host key is what verifies it, as a TLS pin does the others.
    // One line each: the migration runner splits statements at a `;` that ends a line.
    sql: `
ALTER TABLE routers ADD COLUMN device_ssh_host_key text;
ALTER TABLE routers DROP CONSTRAINT routers_device_transport;
ALTER TABLE routers ADD CONSTRAINT routers_device_transport CHECK (device_transport IS NULL OR (device_transport IN ('rest', 'ssh') AND device_host IS NOT NULL));
ALTER TABLE routers ADD CONSTRAINT routers_device_ssh_host_key CHECK ((device_transport IS NOT DISTINCT FROM 'ssh') = (device_ssh_host_key IS NOT NULL));
ALTER TABLE routers DROP CONSTRAINT routers_device_whole;
ALTER TABLE routers ADD CONSTRAINT routers_device_whole CHECK ((device_host IS NULL AND device_user IS NULL AND device_password IS NULL AND device_key_id IS NULL AND device_tls_fingerprint IS NULL AND device_tls_ca IS NULL AND device_port IS NULL AND NOT device_plaintext AND device_ssh_host_key IS NULL) OR (device_host IS NOT NULL AND device_user IS NOT NULL AND device_password IS NOT NULL AND device_key_id IS NOT NULL AND (device_plaintext OR device_tls_fingerprint IS NOT NULL OR device_tls_ca IS NOT NULL OR device_ssh_host_key IS NOT NULL)));
`,
  },
  {
    version: 10,
    description: "a team's name, as people call it (the portal shows it instead of the team's id)",
    // NULL for a team made before, or without one: the portal then shows the id's first part.
    sql: `
ALTER TABLE teams ADD COLUMN name text;
`,
  },
];
