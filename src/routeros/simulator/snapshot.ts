/**
 * The persisted form of a router (configuration, backups, log tail, clock offset, global variables), validated
 * on the way in: it comes back from the service's database, possibly written by an older version.
 */
import * as z from "zod";
import { RosCode } from "../language/code-value.js";
import type { RosValue } from "../language/host.js";
import { arrayOf, entriesOf, keysOf } from "../runtime/arrays.js";
import { findModel, modelNames } from "./models/index.js";
import type { TableState } from "./table.js";

/** A global's value as a snapshot holds it: an array with keys as `{ keyed: [[key, value], ...] }` (null: no key). */
export type PersistedValue =
  | string
  | number
  | boolean
  | null
  | readonly PersistedValue[]
  | { readonly keyed: readonly (readonly [string | null, PersistedValue])[] };

const rosValueSchema: z.ZodType<PersistedValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(rosValueSchema),
    z.object({ keyed: z.array(z.tuple([z.string().nullable(), rosValueSchema])) }),
  ]),
);

/** A global's value for a snapshot; code is not kept (a restored router has the variable, nil). */
export function persistedValue(value: RosValue): PersistedValue {
  if (value instanceof RosCode) return null;
  if (!Array.isArray(value)) return value as PersistedValue;
  if (!keysOf(value)) return value.map(persistedValue);
  return { keyed: entriesOf(value).map(([key, item]) => [key ?? null, persistedValue(item)] as const) };
}

/** A global's value from a snapshot. */
export function revivedValue(value: PersistedValue): RosValue {
  if (Array.isArray(value)) return value.map(revivedValue);
  if (value !== null && typeof value === "object" && "keyed" in value)
    return arrayOf(value.keyed.map(([key, item]) => [key ?? undefined, revivedValue(item)] as const));
  return value as RosValue;
}

const tableStateSchema = z.object({
  nextId: z.number().int().positive(),
  items: z.array(
    z.object({
      id: z.number().int().nonnegative(),
      values: z.record(z.string(), z.string()),
      dynamic: z.boolean().optional(),
      base: z.record(z.string(), z.string()).optional(),
    }),
  ),
});
const configSchema = z.record(z.string(), tableStateSchema);

/** What `snapshot()` returns and `restore()` takes: plain JSON. */
export const routerSnapshotSchema = z.object({
  version: z.literal(1),
  /** The model's catalog name. Absent in snapshots taken before routers had models: the default model. */
  model: z
    .string()
    .refine((name) => findModel(name) !== undefined, {
      error: `must be one of the known router models (${modelNames.join(", ")})`,
    })
    .optional(),
  config: configSchema,
  backups: z.record(z.string(), configSchema),
  log: z.array(z.object({ id: z.number(), time: z.string(), topics: z.string(), message: z.string() })),
  nextLogId: z.number().int().positive(),
  clockOffsetMs: z.number(),
  /**
   * `:global` variables: a service restart re-attaches the router from here and must not lose them, since
   * the router did not reboot. Absent in snapshots taken before they were kept.
   */
  globals: z.record(z.string(), rosValueSchema).optional(),
  /** Text files the router wrote (`/export file=x` -> `x.rsc`). Absent in older snapshots. */
  files: z.record(z.string(), z.string()).optional(),
  /** The `.id` of each file and backup, and the next one. Absent in older snapshots: ids in disk order. */
  fileIds: z
    .object({
      nextId: z.number().int().positive(),
      ids: z.record(z.string(), z.number().int().positive()),
    })
    .optional(),
});
export type RouterSnapshot = z.output<typeof routerSnapshotSchema>;
/** Every table of one configuration, as `Table.state()` gives it. */
export type ConfigState = Record<string, TableState>;
