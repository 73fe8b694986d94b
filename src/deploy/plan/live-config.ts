/**
 * The full configuration read: ONE synchronous request per router, `/export` with no parameters. Our service
 * answers it with one record, `{"ret": "<the export script>"}`, for a simulated router and for a device (which
 * it reads by the file way: docs/plan.md).
 */
import type { RouterJobsClient } from "../../client/client.js";
import { BadResponseError } from "../../client/errors.js";
import { CONFIG_READ_COMMAND } from "../../contract/sync.js";

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
