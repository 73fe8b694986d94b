import type { Migration } from "../database/migrations.js";

/**
 * The receiver's schema (component "receiver"). Tables carry a `receiver_` prefix because a team may point the
 * service and the receiver at one PostgreSQL database, and the service has its own `jobs`.
 * Payload timestamps stay text: they are the service's own strings, returned verbatim to waiters.
 */
export const RECEIVER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "notifications and current job state",
    sql: `
      CREATE TABLE receiver_notifications (
        id bigserial PRIMARY KEY,
        job_id text NOT NULL,
        status text NOT NULL,
        idempotency_key text NOT NULL,
        router_id text NOT NULL,
        webhook_id text,
        payload jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (job_id, status)
      );
      CREATE TABLE receiver_jobs (
        job_id text PRIMARY KEY,
        idempotency_key text NOT NULL,
        router_id text NOT NULL,
        customer_id text NOT NULL,
        seq_id integer NOT NULL,
        description text NOT NULL,
        status text NOT NULL,
        status_rank smallint NOT NULL,
        started_at text,
        completed_at text,
        failed_at text,
        deleted_at text,
        error text,
        first_heard_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX receiver_jobs_idempotency_key ON receiver_jobs (idempotency_key);
      CREATE INDEX receiver_jobs_router_updated ON receiver_jobs (router_id, updated_at DESC);
      CREATE INDEX receiver_jobs_updated ON receiver_jobs (updated_at DESC);
    `,
  },
  {
    version: 2,
    description: "notifications that carry only job_id and status",
    // The public service documents nothing beyond job_id and status: every other column may stay unknown
    // until (or unless) a later notification of the same job carries it.
    sql: `
      ALTER TABLE receiver_notifications ALTER COLUMN idempotency_key DROP NOT NULL;
      ALTER TABLE receiver_notifications ALTER COLUMN router_id DROP NOT NULL;
      ALTER TABLE receiver_jobs ALTER COLUMN idempotency_key DROP NOT NULL;
      ALTER TABLE receiver_jobs ALTER COLUMN router_id DROP NOT NULL;
      ALTER TABLE receiver_jobs ALTER COLUMN customer_id DROP NOT NULL;
      ALTER TABLE receiver_jobs ALTER COLUMN seq_id DROP NOT NULL;
      ALTER TABLE receiver_jobs ALTER COLUMN description DROP NOT NULL;
    `,
  },
];
