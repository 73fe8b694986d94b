import * as z from "zod";
import { UsageError } from "../../errors.js";
import { LOG_LEVELS } from "../../platform/http/server-logging.js";

/** `HOST:PORT`, `[v6]:PORT`; port 0 picks a free one. */
const LISTEN = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/;

const flagsSchema = z
  .object({
    listen: z.string().refine((text) => Number(LISTEN.exec(text)?.[3] ?? Number.NaN) <= 65_535, {
      error: (issue) => listenMessage(String(issue.input)),
    }),
    data: z
      .string({ error: "--data DIR is required: where the receiver keeps its database and secrets" })
      .min(1),
    database: z.string().optional(),
    tlsCert: z.string().optional(),
    tlsKey: z.string().optional(),
    secret: z.array(z.string()),
    signingSecret: z.array(z.string()),
    publicUrl: z
      .string()
      .regex(/^https:\/\/[^/]/, {
        error: (issue) => `--public-url must be an https:// URL (got ${JSON.stringify(issue.input)})`,
      })
      .optional(),
    logLevel: z.enum(LOG_LEVELS, {
      error: (issue) =>
        `--log-level must be one of ${LOG_LEVELS.join(", ")} (got ${JSON.stringify(issue.input)})`,
    }),
  })
  .refine((flags) => Boolean(flags.tlsCert) === Boolean(flags.tlsKey), {
    error: "--tls-cert and --tls-key go together: pass both, or neither for a local CA",
  });
export type ReceiverFlags = z.output<typeof flagsSchema>;

/** The flags of `routerjobs receiver`, checked together, as the service's are; the error names the flag. */
export function parseReceiverFlags(raw: Record<string, unknown>): ReceiverFlags {
  const result = flagsSchema.safeParse(raw);
  if (!result.success) throw new UsageError(result.error.issues.map((issue) => issue.message).join("; "));
  return result.data;
}

const listenMessage = (text: string) =>
  `--listen must be HOST:PORT with a port from 0 to 65535, like 127.0.0.1:8444 (got ${JSON.stringify(text)})`;

/** `HOST:PORT`, `[v6]:PORT`; port 0 picks a free one. */
export function parseListen(text: string): { host: string; port: number } {
  const match = LISTEN.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) throw new UsageError(listenMessage(text));
  return { host: (match[1] ?? match[2]) as string, port };
}
