import { basename } from "node:path";
import { Command } from "commander";
import { DESCRIPTION_MAX_CHARS, SCRIPT_MAX_CHARS } from "../../contract/limits.js";
import { truncateChars } from "../../contract/text.js";
import { writeJson, writeLines } from "../output.js";
import { addClientOptions, CLIENT_ENV_HELP, readFlagFile, withClient } from "../settings/client-options.js";

interface SubmitFlags {
  readonly scriptFile: string;
  readonly description?: string;
  readonly backup: boolean;
  readonly express?: boolean;
  readonly ack: boolean;
  readonly notifyUrl?: string;
  readonly idempotencyKey?: string;
  readonly json?: boolean;
}

/** `routerjobs submit <router> --script-file F`: queues a job and prints the service's acknowledgement. */
export function submitCommand(): Command {
  return addClientOptions(new Command("submit"))
    .description("submit a RouterOS script as an asynchronous job and print the acknowledgement")
    .argument("<router>", "router UUID")
    .requiredOption(
      "--script-file <file>",
      `the script to run (- reads standard input), at most ${SCRIPT_MAX_CHARS} characters`,
    )
    .option(
      "--description <text>",
      `what the job does, at most ${DESCRIPTION_MAX_CHARS} characters (default: the file name)`,
    )
    .option(
      "--no-backup",
      "do not back the configuration up before the script runs (a backup is made by default)",
    )
    .option("--express", "ask the service to run the job at once instead of at its next scheduler tick")
    .option(
      "--no-ack",
      "do not wait for the router's acknowledgement (for scripts that reboot it); errors go unreported",
    )
    .option(
      "--notify-url <url>",
      "https URL that receives the job's status notifications (not with --api sdx, which has none)",
    )
    .option("--idempotency-key <uuid>", "reuse this key to repeat a submission safely (default: a new UUID)")
    .option("--json", "print the acknowledgement as JSON")
    .addHelpText(
      "after",
      `
Examples:
  $ routerjobs submit 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f --script-file identity.rsc --description "set identity"
  $ echo '/system reboot' | routerjobs submit 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f --script-file - --no-ack --no-backup
${CLIENT_ENV_HELP}`,
    )
    .action(async (router: string, flags: SubmitFlags, self: Command) => {
      const script = (await readFlagFile(flags.scriptFile, "--script-file")).trimEnd();
      const description =
        flags.description ??
        truncateChars(
          flags.scriptFile === "-" ? "routerjobs submit" : basename(flags.scriptFile),
          DESCRIPTION_MAX_CHARS,
        );
      const request = {
        description,
        script,
        make_backup: flags.backup,
        express_execute: flags.express ?? false,
        needs_acknowledgement: flags.ack,
        ...(flags.notifyUrl === undefined ? {} : { notify_url: flags.notifyUrl }),
      };
      const { ack, idempotencyKey } = await withClient(self, (client) =>
        client.submitJob(
          router,
          request,
          flags.idempotencyKey === undefined ? {} : { idempotencyKey: flags.idempotencyKey },
        ),
      );
      if (flags.json) writeJson(ack);
      else {
        writeLines([
          `submitted job to router ${ack.target}`,
          ...(typeof ack.job_id === "string" ? [`  job id:          ${ack.job_id}`] : []),
          `  request id:      ${ack.request_id}`,
          `  idempotency key: ${ack.idempotency_key ?? idempotencyKey}`,
          `  date:            ${ack.date}`,
          ...(ack.notify_url ? [`  notify url:      ${ack.notify_url}`] : []),
        ]);
      }
    });
}
