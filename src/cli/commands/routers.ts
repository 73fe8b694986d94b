import { Command } from "commander";
import { UsageError } from "../../errors.js";
import { formatTable, writeJson, writeLines } from "../output.js";
import { addClientOptions, CLIENT_ENV_HELP, withClient } from "../settings/client-options.js";

/** `routerjobs routers`: the routers the token can see, by name. */
export function routersCommand(): Command {
  return addClientOptions(new Command("routers"))
    .description(
      "list the routers the token can see, by name (their names work where a command takes a router)",
    )
    .option("--json", "print the routers as JSON")
    .addHelpText(
      "after",
      `
Asks GET /api/routers, an extension of routerjobs' own service (docs/service.md). The public service
documents no such list, in either API: there, give routers by their UUID.

Examples:
  $ routerjobs routers
  $ routerjobs jobs "$(routerjobs routers --json | jq -r '.[] | select(.name == "office-1") | .id')"
${CLIENT_ENV_HELP}`,
    )
    .action(async (flags: { json?: boolean }, self: Command) => {
      const routers = await withClient(self, (client) => client.listRouters());
      if (routers === undefined)
        throw new UsageError(
          "this service lists no routers (GET /api/routers is an extension of routerjobs' own service; the public service documents no list of sites): give routers by their UUID",
        );
      if (flags.json) writeJson(routers);
      else
        writeLines(
          routers.length === 0
            ? ["(no routers)"]
            : formatTable(
                routers.map(({ id, name, online }) => ({
                  id,
                  name,
                  ...(online === undefined ? {} : { online: online ? "yes" : "no" }),
                })),
              ),
        );
    });
}
