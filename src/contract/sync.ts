import { z } from "zod";
import { describeValue } from "./ids.js";

/** Synchronous request object: a RouterOS API path and optional API words. */
export const syncRequestSchema = z.strictObject(
  {
    command: z
      .string({ error: (issue) => `command must be a string (got ${describeValue(issue.input)})` })
      .min(1, { error: "command must not be empty" })
      .max(256, {
        error: (issue) => `command must be at most 256 characters (got ${String(issue.input).length})`,
      }),
    parameters: z
      .string({ error: (issue) => `parameters must be a string (got ${describeValue(issue.input)})` })
      .max(8192, {
        error: (issue) => `parameters must be at most 8192 characters (got ${String(issue.input).length})`,
      })
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `unknown field ${issue.keys.join(", ")}` : undefined,
  },
);
export type SyncRequest = z.output<typeof syncRequestSchema>;

/** One router record: flat, string values (CONTRACT.md, Synchronous commands). */
export const routerRecordSchema = z.record(z.string(), z.string());
export type RouterRecord = z.output<typeof routerRecordSchema>;

/** Tolerant: a real service may send non-string values; keep them as their string form. */
export const tolerantRouterRecordSchema = z.record(
  z.string(),
  z.unknown().transform((value) => (typeof value === "string" ? value : JSON.stringify(value))),
);
