import { Command } from "commander";
import { untilInterrupted } from "../until-stopped.js";

const HELP = `
Runs the main job on this machine, with nothing to set up but Terraform >= 1.4 (or OpenTofu):
  1. starts the service (five simulated RouterOS routers) and the notification receiver on loopback, with
     generated TLS, and seeds a team and an API token;
  2. synthesizes examples/office-fleet with cdktf and deploys it with terraform: every script is submitted
     as a job with a backup, and confirmed through the receiver;
  3. prints each router's jobs as they change state, then a summary (jobs, backups, API requests spent) and
     one router's configuration read back through the synchronous endpoint;
  4. changes one router, deploys again, and shows that only that router's job ran.
It stops everything it started, also on Ctrl-C (exit 130 when that interrupts it; with --keep, Ctrl-C is how
it ends, exit 0). Exit 5 when Terraform is missing.

Examples:
  npm run demo
  routerjobs demo --keep        # leave the service and receiver running to deploy against them yourself
  routerjobs demo --router-processes
                                # each router its own process speaking the RouterOS API (api-ssl) on
                                # loopback, driven by the service as it drives a MikroTik device`;

export function demoCommand(): Command {
  return new Command("demo")
    .description("deploy the example office fleet with Terraform against an embedded service (the main job)")
    .option("--keep", "leave the service and receiver running, and print how to deploy against them")
    .option("--dir <dir>", "working folder for data, stack and state (default: a new temporary folder)")
    .option(
      "--router-processes",
      "run the five routers as `routerjobs router simulate` processes the service drives over the RouterOS API",
    )
    .addHelpText("after", HELP)
    .action(async (options: { keep?: boolean; dir?: string; routerProcesses?: boolean }) => {
      const { runDemo } = await import("../../demo/demo.js");
      await untilInterrupted("demo interrupted; everything it started is stopped", (signal) =>
        runDemo({
          keep: options.keep ?? false,
          ...(options.dir ? { dir: options.dir } : {}),
          routerProcesses: options.routerProcesses ?? false,
          write: (line) => process.stdout.write(`${line}\n`),
          signal,
        }),
      );
    });
}
