/**
 * The flags that both of `routerjobs apply`'s parsers read: commander's, for the full CLI and its help, and the
 * lean entry's (startup/apply-args.ts), which Terraform starts once per declared script without loading
 * commander. One table, so that the two cannot drift.
 */

export interface FlagSpec {
  /** As commander spells it: `--url <url>` takes a value, `--force` is a switch. */
  readonly flag: string;
  /** The key the value is read into (commander's camel case of the name). */
  readonly key: string;
  readonly help: string;
  readonly hidden?: boolean;
}

/** The connection flags of every client-side command. */
export const CLIENT_FLAGS: readonly FlagSpec[] = [
  { flag: "--url <url>", key: "url", help: "service base URL (env ROUTERJOBS_URL)" },
  {
    flag: "--api <profile>",
    key: "api",
    help: "job API: spec (default) or sdx, the sites API (env ROUTERJOBS_API)",
  },
  {
    flag: "--token-file <file>",
    key: "tokenFile",
    help: "read the API token from FILE (else env ROUTERJOBS_TOKEN)",
  },
  {
    flag: "--ca-file <file>",
    key: "caFile",
    help: "PEM CA certificate to trust for https (env ROUTERJOBS_CA_FILE)",
  },
  {
    flag: "--rate-limit <n/duration>",
    key: "rateLimit",
    help: "request budget for the token, like 60/1m (env ROUTERJOBS_RATE_LIMIT)",
  },
  {
    flag: "--timeout <duration>",
    key: "timeout",
    help: "overall time per call, retries included, like 30s (env ROUTERJOBS_TIMEOUT)",
  },
  // Kept so that it is refused with the usual message: a token on a command line is in every process list.
  { flag: "--token <token>", key: "token", help: "", hidden: true },
];

/** `routerjobs apply`'s own flags. */
export const APPLY_FLAGS: readonly FlagSpec[] = [
  {
    flag: "--job-file <file>",
    key: "jobFile",
    help: "read the job JSON from FILE instead of ROUTERJOBS_JOB",
  },
  {
    flag: "--wait-for <mode>",
    key: "waitFor",
    help: "poll | receiver | auto (overrides the job's wait_for)",
  },
  {
    flag: "--force",
    key: "force",
    help: "run the job again although its latest attempt completed (or ROUTERJOBS_FORCE=1)",
  },
  {
    flag: "--rollback-on-failure",
    key: "rollbackOnFailure",
    help: "when the job fails, restore the router from the backup it took (as the job's rollback: on-failure)",
  },
];

/** The program's own flags, which every command takes. */
export const GLOBAL_FLAGS: readonly FlagSpec[] = [
  {
    flag: "--verbose",
    key: "verbose",
    help: "on failure, print the error code, HTTP status, request id and cause",
  },
];

/** `--url <url>` -> `--url`, taking a value. */
export function flagName(spec: FlagSpec): { readonly name: string; readonly valued: boolean } {
  const [name = spec.flag, value] = spec.flag.split(" ");
  return { name, valued: value !== undefined };
}
