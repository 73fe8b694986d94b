import { Command } from "commander";
import { formatTable, writeJson, writeLines } from "../output.js";
import { addClientOptions, CLIENT_ENV_HELP, withClient } from "../settings/client-options.js";
import { ROUTER_ARGUMENT_HELP, resolveRouter } from "../settings/router-argument.js";

/** `routerjobs exec <router> <command> [parameters]`: a synchronous, real-time command (never retried). */
export function execCommand(): Command {
  return addClientOptions(new Command("exec"))
    .description(
      "run a RouterOS API command on a router now and print the records it returns (read-only use)",
    )
    .argument("<router>", ROUTER_ARGUMENT_HELP)
    .argument("<command>", "RouterOS API path, like /ip/arp/print")
    .argument("[parameters]", "API words in RouterOS API syntax, like '?interface=ether1'")
    .option("--json", "print the records as JSON")
    .addHelpText(
      "after",
      `
A synchronous command has no delivery guarantee and is never retried: use "routerjobs submit" for changes.
With --api sdx the command must only read (a path ending in print, get, getall or export); the records come
back with the same keys as with --api spec (.id as id, mac-address as mac_address, every value a string).

Examples:
  $ routerjobs exec 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f /system/identity/print
  $ routerjobs exec 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f /ip/arp/print '?interface=ether1' --json
${CLIENT_ENV_HELP}`,
    )
    .action(
      async (
        router: string,
        command: string,
        parameters: string | undefined,
        flags: { json?: boolean },
        self: Command,
      ) => {
        const records = await withClient(self, async (client) =>
          client.execute(await resolveRouter(client, router), command, parameters),
        );
        if (flags.json) writeJson(records);
        else writeLines(records.length === 0 ? ["(no records)"] : formatTable(records));
      },
    );
}
