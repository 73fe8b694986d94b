/**
 * The sites API (`sdx` profile), as the public service's current OpenAPI document describes it
 * (docs/service.md, "The sites API"): a job is submitted as a `text/plain` script with its metadata in `X-`
 * headers, listed as a bare array without `status`, and the synchronous endpoint takes API words as an array
 * and answers raw RouterOS records. The limits are from limits.ts: the script's are the sites API's own.
 */
import * as z from "zod";
import { describeValue, UUID_PATTERN } from "./ids.js";
import { scriptSchemaFor } from "./job.js";
import { DESCRIPTION_MAX_CHARS, SYNC_COMMAND_MAX_CHARS, SYNC_PARAMETERS_MAX_CHARS } from "./limits.js";
import { charCount, textProblems } from "./text.js";
import { textField } from "./text-field.js";
import { nullableTimestampSchema, timestampSchema } from "./time.js";

/** The documented lower bound of `X-Description` (the spec route takes 1). */
export const SITE_DESCRIPTION_MIN_CHARS = 3;

export const siteParamsSchema = z.object({
  siteId: z.string().regex(UUID_PATTERN, {
    error: (issue) => `siteId must be a lowercase UUID (got ${describeValue(issue.input)})`,
  }),
});

/**
 * A header value as text. HTTP carries header bytes, which Node reads as Latin-1: a client that sends UTF-8
 * (the only way to put "Zürich" in a header without an encoding scheme of its own) is read back as UTF-8.
 */
function headerText(value: string): string | undefined {
  if (!/[\u0080-\uffff]/.test(value)) return value;
  if (/[\u0100-\uffff]/.test(value)) return undefined;
  try {
    const bytes = Uint8Array.from(value, (char) => char.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const idempotencyKeyHeader = z
  .string({ error: "X-Idempotency-Key is required: a UUID that identifies this submission" })
  .regex(new RegExp(UUID_PATTERN.source, "i"), {
    error: (issue) => `X-Idempotency-Key must be a UUID (got ${describeValue(issue.input)})`,
  })
  .transform((value) => value.toLowerCase());

/**
 * Optional, as the newer ("spa") edition of the sites API makes it; 3 to 100 characters where sent. A job
 * submitted without one is stored and listed with the empty description.
 */
const descriptionHeader = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined) return "";
    const value = headerText(raw);
    if (value === undefined) {
      ctx.addIssue({ code: "custom", message: "X-Description must be UTF-8 text" });
      return z.NEVER;
    }
    const chars = charCount(value);
    const problems = textProblems("X-Description", value, {});
    if (chars < SITE_DESCRIPTION_MIN_CHARS || chars > DESCRIPTION_MAX_CHARS) {
      problems.unshift(
        `X-Description must be ${SITE_DESCRIPTION_MIN_CHARS} to ${DESCRIPTION_MAX_CHARS} characters where sent (got ${chars}); it may be left out`,
      );
    }
    for (const message of problems) ctx.addIssue({ code: "custom", message });
    return value;
  });

/** `true`/`false`, and `1`/`0` as the Laravel service behind the documentation accepts for a boolean. */
const booleanHeader = (name: string, fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined) return fallback;
      const word = value.trim().toLowerCase();
      if (word === "true" || word === "1") return true;
      if (word === "false" || word === "0") return false;
      ctx.addIssue({
        code: "custom",
        message: `${name} must be true or false (got ${describeValue(value)}); without it, ${fallback}`,
      });
      return z.NEVER;
    });

/** The metadata of `POST /sites/{siteId}/jobs`. Other headers pass through untouched. */
export const siteJobHeadersSchema = z.looseObject({
  "x-idempotency-key": idempotencyKeyHeader,
  "x-description": descriptionHeader,
  "x-needs-ack": booleanHeader("X-Needs-Ack", true),
  "x-backup": booleanHeader("X-Backup", false),
  "x-express-execute": booleanHeader("X-Express-Execute", false),
});
export type SiteJobHeaders = z.output<typeof siteJobHeadersSchema>;

/** The body of `POST /sites/{siteId}/jobs`: the script itself, with the sites API's limits (3 to 10,000). */
export const siteScriptSchema = z
  .string({ error: "send the RouterOS script as the request body, with Content-Type: text/plain" })
  .pipe(scriptSchemaFor("sdx"));

/** A job as the sites API shows it: no `status` and no `seq_id`; the state follows from the timestamps. */
export const siteJobSchema = z.object({
  id: z.string(),
  token: z.string(),
  site_id: z.string(),
  idempotency_key: z.string(),
  description: z.string(),
  express_execute: z.boolean(),
  needs_acknowledgement: z.boolean(),
  should_backup: z.boolean(),
  associated_backup: z.string().nullable(),
  started_at: nullableTimestampSchema,
  completed_at: nullableTimestampSchema,
  failed_at: nullableTimestampSchema,
  created_at: timestampSchema,
  log_url: z.string().nullable(),
  script: z.string(),
});
export type SiteJob = z.output<typeof siteJobSchema>;
export const siteJobListSchema = z.array(siteJobSchema);

/**
 * Verbs that only read. `/execute` and every verb that adds, sets, removes, runs or resets are refused; so is
 * `monitor`/`ping`, which stream until stopped and act on the network.
 */
export const READ_ONLY_VERBS = ["print", "get", "getall", "export"] as const;

/** Why `command` is not a read-only API path; undefined when it is. */
export function writeCommandProblem(command: string): string | undefined {
  const verb = command.split("/").at(-1) ?? "";
  if ((READ_ONLY_VERBS as readonly string[]).includes(verb)) return undefined;
  return `command must be read-only (a path ending in ${READ_ONLY_VERBS.join(", ")}); ${describeValue(command)} may change the router: submit it as a job`;
}

/**
 * Why one API word cannot travel to the router unchanged; undefined when it can. The router back end takes
 * the words as one string (the spec route's `parameters`) and splits it where whitespace precedes `=`, `?` or
 * `.`, so a word must start with one of those, hold no such whitespace, and have none at either end.
 * `=file=` makes `print` and `export` write a file on the router: not read-only.
 */
export function parameterWordProblem(word: string): string | undefined {
  if (!/^[=?.]/.test(word)) return `must be an API word starting with =, ? or . (got ${describeValue(word)})`;
  if (/^\s|\s$/.test(word)) return `must not start or end with whitespace (got ${describeValue(word)})`;
  if (/\s[=?.]/.test(word)) {
    return `must not contain whitespace followed by =, ? or . (it would split into two words; got ${describeValue(word)})`;
  }
  if (word.startsWith("=file=")) return "=file= writes a file on the router; this endpoint only reads";
  if (word.startsWith("=script=")) return "=script= runs a script; this endpoint only reads";
  return undefined;
}

/** `POST /sites/{siteId}/commands/synchronous`. The joined words keep the spec route's limit. */
export const siteCommandRequestSchema = z.strictObject(
  {
    command: textField("command", { nonEmpty: true, maxChars: SYNC_COMMAND_MAX_CHARS }).superRefine(
      (command, ctx) => {
        const problem = writeCommandProblem(command);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      },
    ),
    parameters: z
      .array(
        textField("parameters[]").superRefine((word, ctx) => {
          const problem = parameterWordProblem(word);
          if (problem) ctx.addIssue({ code: "custom", message: `parameters[] ${problem}` });
        }),
        { error: (issue) => `parameters must be an array of API words (got ${describeValue(issue.input)})` },
      )
      .default([])
      .superRefine((words, ctx) => {
        const chars = charCount(words.join(" "));
        if (chars > SYNC_PARAMETERS_MAX_CHARS) {
          ctx.addIssue({
            code: "custom",
            message: `parameters must be at most ${SYNC_PARAMETERS_MAX_CHARS} characters joined by spaces (got ${chars})`,
          });
        }
      }),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `unknown field ${issue.keys.join(", ")}` : undefined,
  },
);
export type SiteCommandRequest = z.output<typeof siteCommandRequestSchema>;

/** One record of a raw RouterOS reply: RouterOS keys, typed values (docs/service.md, "Typing of values"). */
export const rawRecordSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));
export type RawRecord = z.output<typeof rawRecordSchema>;
export const rawReplySchema = z.array(rawRecordSchema);

/**
 * One backup as the sites API lists it (`GET /backup/{siteId}`, newest first): its file name (the part of a
 * job's `associated_backup` after the `/`), its size in bytes, the day and time it was taken, `created_at`.
 * `size` is null where the service knows it only by reading the router (ours: the backup stays there).
 */
export const siteBackupSchema = z.object({
  filename: z.string(),
  size: z.number().int().nonnegative().nullable(),
  date: z.string(),
  time: z.string(),
  created_at: timestampSchema,
});
export type SiteBackup = z.output<typeof siteBackupSchema>;
export const siteBackupListSchema = z.array(siteBackupSchema);

/** One backup's export text (`GET /backup/{siteId}/{filename}`). */
export const siteBackupContentSchema = z.object({ content: z.string() });
