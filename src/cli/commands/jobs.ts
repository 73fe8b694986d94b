import { Command } from "commander";
import { ApiError } from "../../client/errors.js";
import { JOB_ALREADY_STARTED } from "../../contract/errors.js";
import type { JobListItem } from "../../contract/job.js";
import { UsageError } from "../../errors.js";
import { formatTable, writeJson, writeLines } from "../output.js";
import { addClientOptions, CLIENT_ENV_HELP, withClient } from "../settings/client-options.js";
import { ROUTER_ARGUMENT_HELP, resolveRouter } from "../settings/router-argument.js";

/** `routerjobs jobs <router>`: the router's jobs, newest first. */
export function jobsCommand(): Command {
  return addClientOptions(new Command("jobs"))
    .description("list the jobs of a router, newest first")
    .argument("<router>", ROUTER_ARGUMENT_HELP)
    .option("--json", "print the job list as JSON, every field included")
    .addHelpText(
      "after",
      `
Examples:
  $ routerjobs jobs 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f
  $ routerjobs jobs office-1
  $ routerjobs jobs 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f --json | jq '.[] | select(.status == "failed")'
${CLIENT_ENV_HELP}`,
    )
    .action(async (router: string, flags: { json?: boolean }, self: Command) => {
      const jobs = await withClient(self, async (client) =>
        client.listJobs(await resolveRouter(client, router)),
      );
      if (flags.json) writeJson(jobs);
      else writeLines(jobs.length === 0 ? ["(no jobs)"] : formatTable(jobs.map(jobRow)));
    })
    .addCommand(cancelCommand());
}

/**
 * `routerjobs jobs cancel <router> <job>`: cancels a job that has not started (the sites API, `--api sdx`).
 * A job that already started is refused by the service: that is an error (exit 3), said as such.
 */
function cancelCommand(): Command {
  return addClientOptions(new Command("cancel"))
    .description("cancel a job that has not started (sites API: --api sdx)")
    .argument("<router>", "router UUID")
    .argument("<job>", "job UUID")
    .action(async (router: string, jobId: string, _flags: object, self: Command) => {
      await withClient(self, async (client) => {
        if (!client.offersOneJob)
          throw new UsageError(
            `the ${client.api} API cannot cancel a job; use --api sdx (ROUTERJOBS_API=sdx)`,
          );
        try {
          await client.cancelJob(router, jobId);
        } catch (error) {
          if (error instanceof ApiError && error.apiCode === JOB_ALREADY_STARTED) {
            throw new ApiError({
              statusCode: error.statusCode,
              apiCode: error.apiCode,
              message: `job ${jobId} was not cancelled: it has already started (${error.message})`,
              requestId: error.requestId,
              errorType: error.errorType,
              docUrl: error.docUrl,
            });
          }
          throw error;
        }
      });
      writeLines([`cancelled job ${jobId}: it will not run`]);
    });
}

function jobRow(job: JobListItem): Record<string, unknown> {
  return {
    // The sites API (--api sdx) numbers no jobs: its rows show the job's id instead.
    ...(job.seq_id === undefined ? { id: job.id } : { seq: job.seq_id }),
    status: job.status,
    description: job.description,
    started: job.started_at,
    ended: job.completed_at ?? job.failed_at ?? job.deleted_at,
    error: job.error,
  };
}
