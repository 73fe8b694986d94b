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

Which jobs would run: those whose job_key is not in an untainted resource of the Terraform state (--state,
the stack's local backend file, or terraform.tfstate / terraform.<stack>.tfstate next to the stack file; no
state: every job). --all runs every
declared job: a router that would still change has drifted from the code (docs/plan.md).

After the jobs, plan checks on the twin that the service still reaches each router (docs/safe-change.md):
the management address and its interface, bridge ports and VLAN filtering, /ip firewall raw and filter
rules in order, /ip service, the route back. A change that would cut the service off is reported with the
rule or setting that cuts it, and exits 1. --reach outbound checks the router's own connection out instead
(the public service's routers connect to it); --reach off skips the check. What is not given is learned
from each router's configuration before the change (its uplink's address, the API-SSL port), and a rule on
what is not known (the service's address, without --service-address) is left undecided, never reported.

--from-backup plans on each router's newest backup as the service keeps it instead of its live configuration:
with --api sdx (the sites API keeps backups: GET /backup/{site}), two small reads per router and no
synchronous /export on the router; with the spec's API, which keeps none, the live configuration as without
the flag. The plan says per router which it used.

Exit codes, as terraform plan -detailed-exitcode: 0 no change, 2 changes, 1 error, a script that would fail,
or a change that would cut the service off.
${CLIENT_ENV_HELP}
  ROUTERJOBS_REACH        as --reach
  ROUTERJOBS_SERVICE_ADDRESS  as --service-address

Examples:
  $ routerjobs plan cdktf.out/stacks/office
  $ routerjobs plan cdktf.out/stacks/office --all --json > drift.json
  $ routerjobs plan cdktf.out/stacks/office --from-backup --api sdx
  $ routerjobs plan cdktf.out/stacks/office --service-address 10.0.0.5 --router-address edge-1=10.0.0.1:8729`;

interface PlanFlags extends ClientFlags {
  readonly all?: boolean;
  readonly json?: boolean;
  readonly state?: string;
  readonly reach?: string;
  readonly serviceAddress?: string;
  readonly routerAddress?: readonly string[];
  readonly reachPort?: string;
  readonly fromBackup?: boolean;
}

const collect = (value: string, previous: readonly string[] = []): readonly string[] => [...previous, value];

/** `routerjobs plan <dir-or-cdk.tf.json>`: what the declared jobs would do to the routers, seen on twins. */
export function planCommand(): Command {
  return addClientOptions(new Command("plan"))
    .description(
      "show what the stack's jobs would change on each router, run on a twin of its live configuration",
    )
    .argument("[stack]", "stack folder or its cdk.tf.json / Terraform JSON file", ".")
    .option("--all", "run every declared job, applied or not (drift check)")
    .option("--json", "print the plan as JSON")
    .option(
      "--from-backup",
      "plan on each router's newest backup the service keeps (sites API), not its live configuration",
    )
    .option("--state <file>", "terraform.tfstate or 'terraform show -json' output saying what is applied")
    .option("--reach <mode>", "how the service reaches the routers: inbound (default), outbound, off")
    .option("--service-address <ipv4>", "the service's address as the routers see its connections")
    .option(
      "--router-address <router=address[:port][@interface]>",
      "where the service connects to a router (name or UUID), and the port it comes in on; repeatable",
      collect,
    )
    .option(
      "--reach-port <port>",
      "the port the service connects to (default 8729; 443 with --reach outbound)",
    )
    .addHelpText("after", HELP)
    .action(async (target: string, _options: PlanFlags, command: Command) => {
      const flags = command.optsWithGlobals<PlanFlags>();
      const [{ PlanChangesError, PlanFailedError }, { RouterjobsError }] = await Promise.all([
        import("../../deploy/plan/errors.js"),
        import("../../errors.js"),
      ]);
      let plan: import("../../deploy/plan/plan.js").Plan;
      let names: ReadonlyMap<string, string>;
      try {
        ({ plan, names } = await makePlan(target, flags, command));
      } catch (error) {
        // 2 must only ever mean "changes": every error of a plan, a usage one included, exits 1.
        if (error instanceof RouterjobsError) throw new PlanFailedError(error.message, { cause: error });
        throw error;
      }
      const { planJson, planText } = await import("../../deploy/plan/report.js");
      if (flags.json) writeJson(planJson(plan));
      else writeLines(planText(plan, names));
      if (plan.failed > 0 || plan.cutOff > 0)
        throw new PlanFailedError(
          [
            plan.failed > 0 ? `${plan.failed} router(s) with a script that would fail or an error` : "",
            plan.cutOff > 0 ? `${plan.cutOff} router(s) the change would cut the service off from` : "",
          ]
            .filter((part) => part !== "")
            .join("; "),
        );
      if (plan.changed > 0) throw new PlanChangesError(`${plan.changed} router(s) would change`);
    });
}

async function makePlan(target: string, flags: PlanFlags, command: Command) {
  const [
    { readStackJobs, stackFile },
    { findStateFile, readAppliedJobKeys },
    { planStack },
    { readLiveConfig, readBackupConfig },
    reachOptions,
    { flagOrEnv },
    { resolveRouter },
  ] = await Promise.all([
    import("../../deploy/plan/stack-jobs.js"),
    import("../../deploy/plan/applied-jobs.js"),
    import("../../deploy/plan/plan.js"),
    import("../../deploy/plan/live-config.js"),
    import("../../deploy/plan/reach-options.js"),
    import("../settings/flag-or-env.js"),
    import("../settings/router-argument.js"),
  ]);
  const env = process.env;
  const mode = flagOrEnv("--reach", "ROUTERJOBS_REACH", flags.reach, env, reachOptions.parseReachMode);
  const serviceAddress = flagOrEnv(
    "--service-address",
    "ROUTERJOBS_SERVICE_ADDRESS",
    flags.serviceAddress,
    env,
    reachOptions.parseAddress,
  );
  const port =
    flags.reachPort === undefined ? undefined : reachOptions.parsePort(flags.reachPort, "--reach-port");
  const named = (flags.routerAddress ?? []).map((text) =>
    reachOptions.parseRouterAddress(text, "--router-address"),
  );
  const file = await stackFile(target);
  const jobs = await readStackJobs(file);
  const stateFile = flags.all ? undefined : await findStateFile(file, flags.state);
  const appliedKeys = stateFile === undefined ? undefined : await readAppliedJobKeys(stateFile);
  return withClient(command, async (client) => {
    const routers = new Map<string, import("../../deploy/plan/reach-options.js").RouterAddress>();
    for (const [router, address] of named) routers.set(await resolveRouter(client, router), address);
    const reach = reachOptions.reachFor({
      ...(mode === undefined ? {} : { mode }),
      ...(serviceAddress === undefined ? {} : { serviceAddress }),
      ...(port === undefined ? {} : { port }),
      routers,
    });
    const plan = await planStack({
      jobs,
      all: flags.all === true,
      ...(appliedKeys ? { appliedKeys } : {}),
      ...(reach ? { reach } : {}),
      readConfig: (routerId) =>
        flags.fromBackup ? readBackupConfig(client, routerId) : readLiveConfig(client, routerId),
    });
    return { plan, names: plan.cutOff > 0 ? await client.routerNames() : new Map<string, string>() };
  });
}
