import * as z from "zod";
import { SYNC_COMMAND_MAX_CHARS, SYNC_PARAMETERS_MAX_CHARS } from "./limits.js";
import { textField } from "./text-field.js";

/** Synchronous request object: a RouterOS API path and optional API words. */
export const syncRequestSchema = z.strictObject(
  {
    command: textField("command", { nonEmpty: true, maxChars: SYNC_COMMAND_MAX_CHARS }),
    parameters: textField("parameters", { maxChars: SYNC_PARAMETERS_MAX_CHARS }).optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `unknown field ${issue.keys.join(", ")}` : undefined,
  },
);
export type SyncRequest = z.output<typeof syncRequestSchema>;

/**
 * The full configuration read (docs/plan.md): `/export` with no parameters, answered with one record
 * `{"ret": "<the export script>"}` for a simulated router and a device alike.
 */
export const CONFIG_READ_COMMAND = "/export";

/** One router record of a synchronous command's answer: flat, string values. */
export const routerRecordSchema = z.record(z.string(), z.string());
export type RouterRecord = z.output<typeof routerRecordSchema>;

/** Tolerant: a real service may send non-string values; keep them as their string form. */
export const tolerantRouterRecordSchema = z.record(
  z.string(),
  z.unknown().transform((value) => (typeof value === "string" ? value : JSON.stringify(value))),
);
