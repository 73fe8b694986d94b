import { Command } from "commander";
import {
  addClientOptions,
  CLIENT_ENV_HELP,
  type ClientFlags,
  withClient,
} from "../settings/client-options.js";
import { ROUTER_ARGUMENT_HELP, resolveRouter } from "../settings/router-argument.js";

interface ImportFlags extends ClientFlags {
  readonly out?: string;
  readonly constructsModule?: string;
}

/** `routerjobs import <router>`: a live router's configuration as a cdktf TypeScript module. */
export function importCommand(): Command {
  return addClientOptions(new Command("import"))
    .description(
      "write a TypeScript module (a RouterConfig, a section per menu) that reproduces a live router",
    )
    .argument("<router>", ROUTER_ARGUMENT_HELP)
    .option("--out <file>", "write the module to FILE (default: standard output)")
    .option("--constructs-module <specifier>", "where RouterConfig is imported from", "routerjobs/constructs")
    .addHelpText(
      "after",
      `
One synchronous request (/export). Secrets are not in an export: add them to the module yourself.
The round trip holds: 'routerjobs plan' of the synthesized module against the same router shows no change.
${CLIENT_ENV_HELP}

Examples:
  $ routerjobs import 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f --out edge-1.ts`,
    )
    .action(async (given: string, _options: ImportFlags, command: Command) => {
      const flags = command.optsWithGlobals<ImportFlags>();
      const [{ readLiveConfig }, { importModule }, { writeFile }] = await Promise.all([
        import("../../deploy/plan/live-config.js"),
        import("../../deploy/plan/import-module.js"),
        import("node:fs/promises"),
      ]);
      const { live, routerId } = await withClient(command, async (client) => {
        const id = await resolveRouter(client, given);
        return { live: await readLiveConfig(client, id), routerId: id };
      });
      const module = importModule(live, {
        routerId,
        ...(flags.constructsModule ? { constructsModule: flags.constructsModule } : {}),
      });
      if (flags.out === undefined) process.stdout.write(module);
      else await writeFile(flags.out, module);
    });
}
