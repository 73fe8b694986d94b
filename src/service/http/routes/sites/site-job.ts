import type { SiteJob } from "../../../../contract/sites.js";
import { formatTimestamp } from "../../../../contract/time.js";
import type { ListItemSql } from "../../../jobs/job-page.js";
import { type JobRow, sqlTimestamp } from "../../../jobs/rows.js";

const time = (value: Date | null): string | null => (value ? formatTimestamp(value) : null);

/**
 * A job as the sites API documents it: no `status`, no `seq_id`, `should_backup` for `make_backup`. The backup
 * is named as the router keeps it (`/system/backup/load name=...` takes that name). Our service keeps no log
 * per job: `log_url` is always null (the router's log is read through the synchronous endpoint).
 */
export function toSiteJob(row: JobRow): SiteJob {
  return {
    id: row.id,
    token: row.token,
    site_id: row.router_id,
    idempotency_key: row.idempotency_key,
    description: row.description,
    express_execute: row.express_execute,
    needs_acknowledgement: row.needs_acknowledgement,
    should_backup: row.make_backup,
    associated_backup: row.backup_name,
    started_at: time(row.started_at),
    completed_at: time(row.completed_at),
    failed_at: time(row.failed_at),
    created_at: formatTimestamp(row.created_at),
    log_url: null,
    script: row.script,
  };
}

/**
 * `toSiteJob` in SQL, same keys in the same order, for the database to write a site's job list
 * (`jobListJson`): a 10,000-job history is then not 10,000 rows cloned to the event loop, mapped and
 * stringified there. test/service/sites.test.ts holds the two to the same JSON. Its items carry the script
 * and every timestamp, so a statement writes 50 of them where the spec's list writes 100: a chunk then holds
 * the database's thread about as long as one of the spec's list, and another router's call waits less behind
 * it (figures: docs/performance.md, bench/job-list-isolation.bench.ts).
 */
export const SITE_JOB_ITEM: ListItemSql = {
  select: `seq_id, json_build_object(
    'id', id, 'token', token, 'site_id', router_id, 'idempotency_key', idempotency_key,
    'description', description, 'express_execute', express_execute,
    'needs_acknowledgement', needs_acknowledgement, 'should_backup', make_backup,
    'associated_backup', backup_name, 'started_at', ${sqlTimestamp("started_at")},
    'completed_at', ${sqlTimestamp("completed_at")}, 'failed_at', ${sqlTimestamp("failed_at")},
    'created_at', ${sqlTimestamp("created_at")}, 'log_url', NULL, 'script', script) AS item`,
  json: "chunk.item",
  chunk: 50,
};
