import { basename } from "node:path";
import { Command } from "commander";
import type { RouterJobsClient, SubmittedJob } from "../../client/client.js";
import { DESCRIPTION_MAX_CHARS, SCRIPT_CHARS } from "../../contract/limits.js";
import { truncateChars } from "../../contract/text.js";
import { UsageError } from "../../errors.js";
import { writeJson, writeLines } from "../output.js";
import { addClientOptions, CLIENT_ENV_HELP, readFlagFile, withClient } from "../settings/client-options.js";
import { ROUTER_ARGUMENT_HELP, resolveRouter } from "../settings/router-argument.js";

interface SubmitFlags {
  readonly scriptFile: string;
  readonly description?: string;
  readonly backup: boolean;
  readonly express?: boolean;
  readonly ack: boolean;
  readonly notifyUrl?: string;
  readonly idempotencyKey?: string;
  readonly json?: boolean;
  readonly check: boolean;
}

/** `routerjobs submit <router> --script-file F`: queues a job and prints the service's acknowledgement. */
export function submitCommand(): Command {
  return addClientOptions(new Command("submit"))
    .description("submit a RouterOS script as an asynchronous job and print the acknowledgement")
    .argument("<router>", ROUTER_ARGUMENT_HELP)
    .requiredOption(
      "--script-file <file>",
      `the script to run (- reads standard input): at most ${SCRIPT_CHARS.spec.max} characters on the spec API, ${SCRIPT_CHARS.sdx.min} to ${SCRIPT_CHARS.sdx.max} on sdx (--api)`,
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
    .option(
      "--no-check",
      "submit the script without checking it against RouterOS 7.24's command tree first (as synth does)",
    )
    .option("--json", "print the acknowledgement as JSON")
    .addHelpText(
      "after",
      `
Examples:
  $ routerjobs submit 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f --script-file identity.rsc --description "set identity"
  $ echo '/system reboot' | routerjobs submit 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f --script-file - --no-ack --no-backup

The script is checked as the constructs check it at synth: its syntax and every menu, command and argument
name against RouterOS 7.24, with the nearest valid names when one is wrong. Nothing is sent when it fails;
--no-check submits it as it is (a script for another RouterOS version, or a package the tree lacks).
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
      if (flags.check) await refuseUnknownCommands(script);
      const request = {
        description,
        script,
        make_backup: flags.backup,
        express_execute: flags.express ?? false,
        needs_acknowledgement: flags.ack,
        ...(flags.notifyUrl === undefined ? {} : { notify_url: flags.notifyUrl }),
      };
      const { ack, idempotencyKey, job } = await withClient(self, async (client) => {
        const routerId = await resolveRouter(client, router);
        const submitted = await client.submitJob(
          routerId,
          request,
          flags.idempotencyKey === undefined ? {} : { idempotencyKey: flags.idempotencyKey },
        );
        return { ...submitted, job: await submittedJob(client, routerId, submitted) };
      });
      if (flags.json) writeJson(ack);
      else {
        writeLines([
          `submitted job to router ${ack.target}`,
          ...(job?.id === undefined ? [] : [`  job id:          ${job.id}`]),
          ...(job?.seq_id === undefined ? [] : [`  seq:             ${job.seq_id}`]),
          `  request id:      ${ack.request_id}`,
          `  idempotency key: ${ack.idempotency_key ?? idempotencyKey}`,
          `  date:            ${ack.date}`,
          ...(ack.notify_url ? [`  notify url:      ${ack.notify_url}`] : []),
          `follow it with: routerjobs jobs ${router}`,
        ]);
      }
    });
}

/** A script that would fail at the router for a wrong name or its syntax is refused before it is sent. */
async function refuseUnknownCommands(script: string): Promise<void> {
  // Loaded here, not at start-up: the command tree is large, and only this check needs it.
  const { checkScript } = await import("../../routeros/catalog/check-script.js");
  const problem = checkScript(script);
  if (problem)
    throw new UsageError(`script: ${problem.message} (nothing was sent; --no-check submits it as it is)`);
}

/**
 * The job a submission made, by id and number: our service's acknowledgement names them (an extension) and the
 * sites API's names the id; otherwise the router's list is read once for the job with the key. The job was
 * submitted whatever this finds, so a failure to read the list only leaves them out.
 */
async function submittedJob(
  client: RouterJobsClient,
  router: string,
  { ack, idempotencyKey }: SubmittedJob,
): Promise<{ readonly id?: string; readonly seq_id?: number } | undefined> {
  const id = typeof ack.job_id === "string" ? ack.job_id : undefined;
  const seq = typeof ack.seq_id === "number" ? ack.seq_id : undefined;
  if (id !== undefined && (seq !== undefined || client.api === "sdx"))
    return { id, ...(seq === undefined ? {} : { seq_id: seq }) };
  const key = ack.idempotency_key ?? idempotencyKey;
  const listed = await client
    .listJobs(router)
    .then((jobs) => jobs.find((job) => job.idempotency_key === key))
    .catch(() => undefined);
  return listed && { id: listed.id, ...(listed.seq_id === undefined ? {} : { seq_id: listed.seq_id }) };
}
