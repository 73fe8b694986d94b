import { writeFile } from "node:fs/promises";
import { Command } from "commander";
import type { BackupItem } from "../../client/profiles.js";
import { UsageError } from "../../errors.js";
import { formatTable, writeJson, writeLines } from "../output.js";
import { addClientOptions, CLIENT_ENV_HELP, withClient } from "../settings/client-options.js";
import { ROUTER_ARGUMENT_HELP, resolveRouter } from "../settings/router-argument.js";

const NO_BACKUPS = (api: string) =>
  `the ${api} API keeps no backups of its own (a job's backup stays on the router); use --api sdx (ROUTERJOBS_API=sdx)`;

/** `routerjobs backups <router>`: the backups the service keeps of a router's jobs, newest first (sites API). */
export function backupsCommand(): Command {
  return addClientOptions(new Command("backups"))
    .description("list the backups the service keeps of a router, newest first (sites API: --api sdx)")
    .argument("<router>", ROUTER_ARGUMENT_HELP)
    .option("--json", "print the backups as JSON, every field included")
    .addHelpText(
      "after",
      `
A job submitted with a backup (the default of submit; make_backup on the constructs) has the service back the
router's configuration up before its script runs; the job's associated_backup names the file. The sites API
(--api sdx) lists and serves those backups; the spec's API has no such endpoint.

Examples:
  $ routerjobs backups 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f --api sdx
  $ routerjobs backups get 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f 1732567800.rsc --api sdx --out edge-1.rsc
${CLIENT_ENV_HELP}`,
    )
    .action(async (router: string, flags: { json?: boolean }, self: Command) => {
      const backups = await withClient(self, async (client) => {
        if (!client.offersBackups) throw new UsageError(NO_BACKUPS(client.api));
        return client.listBackups(await resolveRouter(client, router));
      });
      if (flags.json) writeJson(backups);
      else writeLines(backups.length === 0 ? ["(no backups)"] : formatTable(backups.map(backupRow)));
    })
    .addCommand(getCommand());
}

/** `routerjobs backups get <router> <file>`: one backup's export text, to standard output or `--out`. */
function getCommand(): Command {
  return addClientOptions(new Command("get"))
    .description("print one backup's export text (or write it to --out)")
    .argument("<router>", ROUTER_ARGUMENT_HELP)
    .argument("<file>", "the backup's file name, as `routerjobs backups <router>` lists it")
    .option("--out <file>", "write the export to FILE (default: standard output)")
    .addHelpText(
      "after",
      `
Examples:
  $ routerjobs backups get 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f 1732567800.rsc --api sdx
  $ routerjobs backups get office-1 1732567800.rsc --api sdx --out office-1.rsc
${CLIENT_ENV_HELP}`,
    )
    .action(async (router: string, file: string, flags: { out?: string }, self: Command) => {
      const content = await withClient(self, async (client) => {
        if (!client.offersBackups) throw new UsageError(NO_BACKUPS(client.api));
        return client.getBackup(await resolveRouter(client, router), file);
      });
      const text = content.endsWith("\n") ? content : `${content}\n`;
      if (flags.out === undefined) process.stdout.write(text);
      else {
        await writeFile(flags.out, text);
        writeLines([`wrote backup ${file} to ${flags.out}`]);
      }
    });
}

function backupRow(backup: BackupItem): Record<string, unknown> {
  return {
    file: backup.filename,
    taken: backup.created_at ?? [backup.date, backup.time].filter(Boolean).join(" "),
    size: backup.size,
  };
}
