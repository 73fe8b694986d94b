/**
 * The full configuration read: ONE synchronous request per router, `/export` with no parameters. Our service
 * answers it with one record, `{"ret": "<the export script>"}`, for a simulated router and for a device (which
 * it reads by the file way: docs/plan.md).
 */
import type { RouterJobsClient } from "../../client/client.js";
import { BadResponseError } from "../../client/errors.js";
import { CONFIG_READ_COMMAND } from "../../contract/sync.js";
import { PlanFailedError } from "./errors.js";

export { CONFIG_READ_COMMAND };

/** The router's export text; a missing or odd answer is a clear error naming what came back. */
export async function readLiveConfig(client: RouterJobsClient, routerId: string): Promise<string> {
  const records = await client.execute(routerId, CONFIG_READ_COMMAND);
  const text = records.length === 1 ? records[0]?.ret : undefined;
  if (typeof text !== "string")
    throw new BadResponseError({
      statusCode: 200,
      message: `router ${routerId}: ${CONFIG_READ_COMMAND} answered ${records.length} record(s) without one "ret" text; this service cannot read the router's configuration (docs/plan.md)`,
    });
  return text;
}

/** A configuration a plan starts from, and where it came from (said in the plan: which was used). */
export interface ConfigRead {
  readonly text: string;
  /** `the service's backup 1732567800.rsc (taken 2026-12-02 06:01:38)`, `the live configuration (/export)`. */
  readonly source: string;
}

/**
 * `plan --from-backup`: the router's newest backup as the service keeps it, where the API keeps backups of its
 * own (the sites API: `GET /backup/{site}`, then the newest file's `content`), two small reads that need no
 * synchronous command on the router. Where the API keeps none (the spec's: the backup stays on the router),
 * the live configuration, as a plan without the flag reads it; the source says which was used.
 */
export async function readBackupConfig(client: RouterJobsClient, routerId: string): Promise<ConfigRead> {
  if (!client.offersBackups)
    return {
      text: await readLiveConfig(client, routerId),
      source: `the live configuration (${CONFIG_READ_COMMAND}): the ${client.api} API keeps no backups of its own`,
    };
  const [newest] = await client.listBackups(routerId);
  if (!newest)
    throw new PlanFailedError(
      `router ${routerId}: the service keeps no backup of it (--from-backup needs a job that took one); plan without --from-backup reads the live configuration`,
    );
  const taken = newest.created_at ?? ([newest.date, newest.time].filter(Boolean).join(" ") || undefined);
  return {
    text: await client.getBackup(routerId, newest.filename),
    source: `the service's backup ${newest.filename}${taken === undefined ? "" : ` (taken ${taken})`}`,
  };
}
