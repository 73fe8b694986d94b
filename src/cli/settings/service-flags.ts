import * as z from "zod";
import { UsageError } from "../../errors.js";
import { LOG_LEVELS } from "../../platform/http/server-logging.js";

const flagsSchema = z.object({
  listen: z.string().regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/, { error: "--listen must be HOST:PORT" }),
  data: z.string().min(1),
  database: z.string().optional(),
  seed: z.string().optional(),
  tlsCert: z.string().optional(),
  tlsKey: z.string().optional(),
  tlsGenerate: z.boolean().optional(),
  rateLimit: z.string().optional(),
  tick: z.string().optional(),
  syncTimeout: z.string().optional(),
  shutdownGrace: z.string().optional(),
  jobTimeout: z.string().optional(),
  notifyCaFile: z.string().optional(),
  notifyAllow: z.array(z.string()).optional(),
  adminRemote: z.boolean().optional(),
  /** commander's `--no-portal`: false when given, true otherwise. */
  portal: z.boolean().optional(),
  logLevel: z.enum(LOG_LEVELS),
});
export type ServiceFlags = z.output<typeof flagsSchema>;

/** The flags of `routerjobs service start`, checked together; the error names the flag. */
export function parseServiceFlags(raw: Record<string, unknown>): ServiceFlags {
  const result = flagsSchema.safeParse(raw);
  if (!result.success) throw new UsageError(result.error.issues.map((issue) => issue.message).join("; "));
  if (Boolean(result.data.tlsCert) !== Boolean(result.data.tlsKey)) {
    throw new UsageError("--tls-cert and --tls-key go together");
  }
  if (result.data.tlsCert && result.data.tlsGenerate) {
    throw new UsageError("use either --tls-cert/--tls-key or --tls-generate");
  }
  return result.data;
}
