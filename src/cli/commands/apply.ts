import { Command } from "commander";
import { JobFailedError, TimeoutError } from "../../client/errors.js";
import { UsageError } from "../../errors.js";
import {
  addClientOptions,
  CLIENT_ENV_HELP,
  type ClientFlags,
  readFlagFile,
  withClient,
} from "../client-options.js";

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

interface ApplyFlags extends ClientFlags {
  readonly jobFile?: string;
  readonly waitFor?: string;
  readonly force?: boolean;
}

export function applyCommand(): Command {
  return addClientOptions(new Command("apply"))
    .description("submit one declared job (with a backup) and wait until the router completed it")
    .option("--job-file <file>", "read the job JSON from FILE instead of ROUTERJOBS_JOB")
    .option("--wait-for <mode>", "poll | receiver | auto (overrides the job's wait_for)")
    .option("--force", "run the job again although its latest attempt completed (or ROUTERJOBS_FORCE=1)")
    .addHelpText("after", HELP)
    .action(async (_options: ApplyFlags, command: Command) => {
      const flags = command.optsWithGlobals<ApplyFlags>();
      const [
        { parseApplyJob, APPLY_JOB_ENV, INSTANCE_ID_ENV },
        { applyJob },
        { Journal },
        { defaultStateDir },
        receiver,
        { DEPLOY_FILE_ENV, readDeployKnowledge },
      ] = await Promise.all([
        import("../../contract/apply-job.js"),
        import("../../apply/apply.js"),
        import("../../apply/journal.js"),
        import("../../client/state-dir.js"),
        import("../receiver-env.js"),
        import("../../apply/deploy-knowledge.js"),
      ]);
      const text = flags.jobFile
        ? await readFlagFile(flags.jobFile, "--job-file")
        : process.env[APPLY_JOB_ENV];
      if (!text) throw new UsageError(`no job: set ${APPLY_JOB_ENV} or pass --job-file FILE`);
      const job = parseApplyJob(text);
      const waitFor = flags.waitFor ?? job.wait_for;
      if (!["poll", "receiver", "auto"].includes(waitFor)) {
        throw new UsageError(`--wait-for must be poll, receiver or auto (got ${JSON.stringify(waitFor)})`);
      }
      const deployFile = process.env[DEPLOY_FILE_ENV];
      const knowledge = deployFile ? await readDeployKnowledge(deployFile) : undefined;
      const receiverClient =
        waitFor === "poll" ? undefined : await receiver.receiverFromEnv(waitFor === "receiver");
      const controller = new AbortController();
      const stop = () =>
        controller.abort(new UsageError("interrupted; the next apply resumes waiting for the same job"));
      process.once("SIGINT", stop).once("SIGTERM", stop);
      try {
        const result = await withClient(command, (client) =>
          applyJob(
            { ...job, wait_for: waitFor as typeof job.wait_for },
            {
              client,
              journal: new Journal(defaultStateDir()),
              instanceId: process.env[INSTANCE_ID_ENV] || "manual",
              knowledge,
              receiver: receiverClient?.client,
              notifyUrl: receiverClient?.notifyUrl,
              force: flags.force ?? process.env.ROUTERJOBS_FORCE === "1",
              write: (line) => process.stdout.write(`${line}\n`),
              signal: controller.signal,
            },
          ),
        );
        if (result.outcome === "timeout") {
          throw new TimeoutError(
            `${job.resource}: the job did not finish within its timeout; the next apply resumes waiting for it`,
            { phase: "deadline", requestSent: true },
          );
        }
        if (result.outcome !== "completed") {
          throw new JobFailedError(
            result.job,
            `${job.resource}: job ${result.job.id} ${result.outcome}: ${result.reason}`,
          );
        }
        process.stdout.write(`routerjobs: ${job.resource}: completed\n`);
      } finally {
        process.off("SIGINT", stop).off("SIGTERM", stop);
        await receiverClient?.client.close();
      }
    });
}
