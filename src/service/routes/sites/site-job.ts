import type { SiteJob } from "../../../contract/sites.js";
import { formatTimestamp } from "../../../contract/time.js";
import type { JobRow } from "../../store/rows.js";

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
