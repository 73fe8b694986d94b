import { Command } from "commander";
import type { JobListItem } from "../../contract/job.js";
import { formatTable, writeJson, writeLines } from "../output.js";
import { addClientOptions, CLIENT_ENV_HELP, withClient } from "../settings/client-options.js";

/** `routerjobs jobs <router>`: the router's jobs, newest first. */
export function jobsCommand(): Command {
  return addClientOptions(new Command("jobs"))
    .description("list the jobs of a router, newest first")
    .argument("<router>", "router UUID")
    .option("--json", "print the job list as JSON, every field included")
    .addHelpText(
      "after",
      `
Examples:
  $ routerjobs jobs 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f
  $ routerjobs jobs 6f1c0d4e-2b7a-4c1e-9f3d-5a8b7c6d5e4f --json | jq '.[] | select(.status == "failed")'
${CLIENT_ENV_HELP}`,
    )
    .action(async (router: string, flags: { json?: boolean }, self: Command) => {
      const jobs = await withClient(self, (client) => client.listJobs(router));
      if (flags.json) writeJson(jobs);
      else writeLines(jobs.length === 0 ? ["(no jobs)"] : formatTable(jobs.map(jobRow)));
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
