import { type AttemptMarker, markDescription } from "../../../src/contract/attempt-marker.js";
import type { JobListItem } from "../../../src/contract/job.js";

/** A job as the service lists it, carrying the attempt `marker` in its description (one fixture for apply's tests). */
export function listedJob(
  status: JobListItem["status"],
  marker: AttemptMarker,
  seq: number,
  id = `00000000-0000-4000-8000-${String(seq).padStart(12, "0")}`,
): JobListItem {
  return {
    id,
    idempotency_key: "00000000-0000-4000-8000-000000000000",
    description: markDescription("dns", marker),
    express_execute: false,
    needs_acknowledgement: true,
    make_backup: true,
    started_at: null,
    completed_at: null,
    failed_at: null,
    deleted_at: null,
    status,
    seq_id: seq,
  } as JobListItem;
}
