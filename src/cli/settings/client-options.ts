/**
 * The connection flags every client-side command shares, as commander options. Their resolution into client
 * options lives in client-settings.ts, which `routerjobs apply`'s lean entry uses without commander.
 */
import { type Command, Option } from "commander";
import type { RouterJobsClient } from "../../client/index.js";
import { type ClientFlags, withClientFromFlags } from "./client-settings.js";
import { CLIENT_FLAGS, type FlagSpec } from "./flag-table.js";

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
  return addFlags(command, CLIENT_FLAGS);
}

/** Adds the flags of a table to a command, as the lean entry reads them too. */
export function addFlags(command: Command, flags: readonly FlagSpec[]): Command {
  for (const spec of flags) {
    if (spec.hidden) command.addOption(new Option(spec.flag).hideHelp());
    else command.option(spec.flag, spec.help);
  }
  return command;
}

/** Builds a client from a command's flags, runs `work`, and always closes the client. */
export async function withClient<T>(
  command: Command,
  work: (client: RouterJobsClient) => Promise<T>,
): Promise<T> {
  return withClientFromFlags(command.optsWithGlobals<ClientFlags>(), work);
}
