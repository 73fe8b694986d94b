import { Command } from "commander";
import { writeJson, writeLines } from "../output.js";
import {
  addClientOptions,
  CLIENT_ENV_HELP,
  type ClientFlags,
  withClient,
} from "../settings/client-options.js";

const HELP = `
Reads each router's live configuration through the service (one synchronous /export per router that has a
job to run), loads it into a simulated router (the twin), runs the jobs that would run there in Terraform's
order, and prints per router the export lines added (+), removed (-) and changed (~), grouped by menu, and
every script that would fail with the router's error and line. Read-only: it submits nothing.

Which jobs would run: those whose job_key is not in an untainted resource of the Terraform state (--state, or
terraform.tfstate / terraform.<stack>.tfstate next to the stack file; no state: every job). --all runs every
declared job: a router that would still change has drifted from the code (docs/plan.md).

Exit codes, as terraform plan -detailed-exitcode: 0 no change, 2 changes, 1 error or a script that would fail.
${CLIENT_ENV_HELP}

Examples:
  $ routerjobs plan cdktf.out/stacks/office
  $ routerjobs plan cdktf.out/stacks/office --all --json > drift.json`;

interface PlanFlags extends ClientFlags {
  readonly all?: boolean;
  readonly json?: boolean;
  readonly state?: string;
}

/** `routerjobs plan <dir-or-cdk.tf.json>`: what the declared jobs would do to the routers, seen on twins. */
export function planCommand(): Command {
  return addClientOptions(new Command("plan"))
    .description(
      "show what the stack's jobs would change on each router, run on a twin of its live configuration",
    )
    .argument("[stack]", "stack folder or its cdk.tf.json / Terraform JSON file", ".")
    .option("--all", "run every declared job, applied or not (drift check)")
    .option("--json", "print the plan as JSON")
    .option("--state <file>", "terraform.tfstate or 'terraform show -json' output saying what is applied")
    .addHelpText("after", HELP)
    .action(async (target: string, _options: PlanFlags, command: Command) => {
      const flags = command.optsWithGlobals<PlanFlags>();
      const [{ PlanChangesError, PlanFailedError }, { RouterjobsError }] = await Promise.all([
        import("../../deploy/plan/errors.js"),
        import("../../errors.js"),
      ]);
      let plan: import("../../deploy/plan/plan.js").Plan;
      try {
        plan = await makePlan(target, flags, command);
      } catch (error) {
        // 2 must only ever mean "changes": every error of a plan, a usage one included, exits 1.
        if (error instanceof RouterjobsError) throw new PlanFailedError(error.message, { cause: error });
        throw error;
      }
      const { planJson, planText } = await import("../../deploy/plan/report.js");
      if (flags.json) writeJson(planJson(plan));
      else writeLines(planText(plan));
      if (plan.failed > 0)
        throw new PlanFailedError(`${plan.failed} router(s) with a script that would fail or an error`);
      if (plan.changed > 0) throw new PlanChangesError(`${plan.changed} router(s) would change`);
    });
}

async function makePlan(target: string, flags: PlanFlags, command: Command) {
  const [
    { readStackJobs, stackFile },
    { findStateFile, readAppliedJobKeys },
    { planStack },
    { readLiveConfig },
  ] = await Promise.all([
    import("../../deploy/plan/stack-jobs.js"),
    import("../../deploy/plan/applied-jobs.js"),
    import("../../deploy/plan/plan.js"),
    import("../../deploy/plan/live-config.js"),
  ]);
  const file = await stackFile(target);
  const jobs = await readStackJobs(file);
  const stateFile = flags.all ? undefined : await findStateFile(file, flags.state);
  const appliedKeys = stateFile === undefined ? undefined : await readAppliedJobKeys(stateFile);
  return withClient(command, (client) =>
    planStack({
      jobs,
      all: flags.all === true,
      ...(appliedKeys ? { appliedKeys } : {}),
      readConfig: (routerId) => readLiveConfig(client, routerId),
    }),
  );
}
