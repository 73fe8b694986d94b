/**
 * The connection flags every client-side command shares, as commander options. Their resolution into client
 * options lives in client-settings.ts, which `routerjobs apply`'s lean entry uses without commander.
 */
import { type Command, Option } from "commander";
import type { RouterJobsClient } from "../../client/index.js";
import { type ClientFlags, withClientFromFlags } from "./client-settings.js";

export {
  type ClientFlags,
  readFlagFile,
  resolveClientOptions,
  withClientFromFlags,
} from "./client-settings.js";

export const CLIENT_ENV_HELP = `
Connection (flags win over environment variables):
  ROUTERJOBS_URL          service base URL, as --url
  ROUTERJOBS_API          the service's job API, as --api: spec (default) or sdx (the sites API)
  ROUTERJOBS_TOKEN        API token: <uuid>:<uuid>:<secret>, a JWT or an API key (or --token-file FILE)
  ROUTERJOBS_CA_FILE      PEM CA to trust, as --ca-file
  ROUTERJOBS_RATE_LIMIT   request budget shared by every process using the token, as --rate-limit
  ROUTERJOBS_TIMEOUT      overall time per call, retries included, as --timeout
  ROUTERJOBS_STATE_DIR    where the shared budget lives (default $XDG_STATE_HOME/routerjobs)`;

/** Adds the shared connection flags to a command. */
export function addClientOptions(command: Command): Command {
  return command
    .option("--url <url>", "service base URL (env ROUTERJOBS_URL)")
    .option("--api <profile>", "job API: spec (default) or sdx, the sites API (env ROUTERJOBS_API)")
    .option("--token-file <file>", "read the API token from FILE (else env ROUTERJOBS_TOKEN)")
    .option("--ca-file <file>", "PEM CA certificate to trust for https (env ROUTERJOBS_CA_FILE)")
    .option(
      "--rate-limit <n/duration>",
      "request budget for the token, like 60/1m (env ROUTERJOBS_RATE_LIMIT)",
    )
    .option(
      "--timeout <duration>",
      "overall time per call, retries included, like 30s (env ROUTERJOBS_TIMEOUT)",
    )
    .addOption(new Option("--token <token>").hideHelp());
}

/** Builds a client from a command's flags, runs `work`, and always closes the client. */
export async function withClient<T>(
  command: Command,
  work: (client: RouterJobsClient) => Promise<T>,
): Promise<T> {
  return withClientFromFlags(command.optsWithGlobals<ClientFlags>(), work);
}
