/**
 * What `routerjobs apply` does once its flags are read, free of commander: both the full CLI (apply.ts) and the
 * lean entry that Terraform's provisioners start (apply-main.ts) call it. See docs/apply.md.
 */

import { JobFailedError, TimeoutError } from "../client/errors.js";
import { defaultStateDir } from "../client/state-dir.js";
import { APPLY_JOB_ENV, INSTANCE_ID_ENV, parseApplyJob } from "../contract/apply-job.js";
import { applyJob } from "../deploy/apply/apply.js";
import { DEPLOY_FILE_ENV, readDeployKnowledge } from "../deploy/apply/deploy-knowledge.js";
import { Journal } from "../deploy/apply/journal.js";
import { UsageError } from "../errors.js";
import { type ClientFlags, readFlagFile, withClientFromFlags } from "./settings/client-settings.js";
import { untilInterrupted } from "./until-stopped.js";

export interface ApplyFlags extends ClientFlags {
  readonly jobFile?: string;
  readonly waitFor?: string;
  readonly force?: boolean;
  readonly rollbackOnFailure?: boolean;
}

export async function runApply(flags: ApplyFlags): Promise<void> {
  const text = flags.jobFile ? await readFlagFile(flags.jobFile, "--job-file") : process.env[APPLY_JOB_ENV];
  if (!text) throw new UsageError(`no job: set ${APPLY_JOB_ENV} or pass --job-file FILE`);
  const job = parseApplyJob(text);
  const waitFor = flags.waitFor ?? job.wait_for;
  if (!["poll", "receiver", "auto"].includes(waitFor)) {
    throw new UsageError(`--wait-for must be poll, receiver or auto (got ${JSON.stringify(waitFor)})`);
  }
  const deployFile = process.env[DEPLOY_FILE_ENV];
  const knowledge = deployFile ? await readDeployKnowledge(deployFile) : undefined;
  // The receiver's client only when it may be used: a polling apply never loads it.
  const receiverClient =
    waitFor === "poll"
      ? undefined
      : await (await import("./settings/receiver-env.js")).receiverFromEnv(waitFor === "receiver");
  try {
    // The API the construct declared, unless --api says otherwise (it wins over ROUTERJOBS_API).
    const clientFlags = flags.api === undefined && job.api !== undefined ? { ...flags, api: job.api } : flags;
    const result = await untilInterrupted(
      "interrupted; the next apply resumes waiting for the same job",
      (signal) =>
        withClientFromFlags(clientFlags, (client) =>
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
              rollbackOnFailure: flags.rollbackOnFailure,
              write: (line) => process.stdout.write(`${line}\n`),
              signal,
            },
          ),
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
    await receiverClient?.client.close();
  }
}
