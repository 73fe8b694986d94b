import { Command } from "commander";
import type { ApplyFlags } from "../apply-run.js";
import { addClientOptions, addFlags, CLIENT_ENV_HELP } from "../settings/client-options.js";
import { APPLY_FLAGS } from "../settings/flag-table.js";

const HELP = `
What Terraform runs for each RouterScript (local-exec): finds this change's attempts in the router's job
list, submits the declared job with its backup only when no attempt is in flight or done, then waits until
the router completed it. Prints one line per state change; exits 0 when completed, 1 when the job failed or
was deleted (Terraform then taints the resource, and the next apply retries deliberately), 4 when the timeout
passed first (the next apply waits for the same job). Under 'routerjobs deploy' (ROUTERJOBS_DEPLOY_FILE) it
uses the job lists deploy read and knows what Terraform's state recorded. See docs/apply.md.

The job comes from ROUTERJOBS_JOB (JSON written by the constructs) or --job-file FILE.

Receiver (optional, for --wait-for receiver|auto):
  ROUTERJOBS_RECEIVER_URL         base URL of 'routerjobs receiver', like https://127.0.0.1:8444
  ROUTERJOBS_RECEIVER_TOKEN_FILE  its reader token file (or ROUTERJOBS_RECEIVER_TOKEN)
  ROUTERJOBS_RECEIVER_CA_FILE     PEM CA of the receiver (default: ROUTERJOBS_CA_FILE)
  ROUTERJOBS_NOTIFY_URL           the notify_url the receiver printed (holds its secret)
${CLIENT_ENV_HELP}

Example (plain Terraform):
  ROUTERJOBS_JOB='{"version":1,...}' routerjobs apply`;

export function applyCommand(): Command {
  return addFlags(addClientOptions(new Command("apply")), APPLY_FLAGS)
    .description("submit one declared job (with a backup) and wait until the router completed it")
    .addHelpText("after", HELP)
    .action(async (_options: ApplyFlags, command: Command) => {
      const { runApply } = await import("../apply-run.js");
      await runApply(command.optsWithGlobals<ApplyFlags>());
    });
}
