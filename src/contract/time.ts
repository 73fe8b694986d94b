import * as z from "zod";

/**
 * ISO 8601 with an explicit UTC offset and milliseconds: `2026-11-22T17:22:28.123+00:00`.
 * `Date#toISOString` ends in `Z`; the contract asks for a numeric offset, as the public service sends.
 */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/Z$/, "+00:00");
}

const OFFSET_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** A timestamp as a client must accept it: any ISO 8601 date-time with an offset or `Z`. */
export const timestampSchema = z
  .string()
  .refine((value) => OFFSET_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value)), {
    error: "must be an ISO 8601 timestamp with a UTC offset",
  });

export const nullableTimestampSchema = timestampSchema.nullable();
