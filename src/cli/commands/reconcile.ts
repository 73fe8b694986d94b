import { Command } from "commander";
import { writeJson } from "../output.js";
import {
  addClientOptions,
  CLIENT_ENV_HELP,
  type ClientFlags,
  withClient,
} from "../settings/client-options.js";
import { provisionerEnv } from "./deploy.js";

const HELP = `
Compares every router job resource in a Terraform state with the routers' job lists (one request per
router) and says what each declared change did: ok (its job completed), missing (Terraform recorded it, but
its job never ran), in-flight, failed (after an interrupted deploy; the router's reason is shown), tainted.
Read-only: it changes neither the state nor a router. Exits 0 when every change ran, 1 when any did not.
'routerjobs deploy' does this first and then acts on it.
${CLIENT_ENV_HELP}

Examples:
  $ routerjobs reconcile --dir cdktf.out/stacks/office
  $ routerjobs reconcile --json | jq '.[] | select(.verdict != "ok")'`;

interface ReconcileFlags extends ClientFlags {
  readonly dir?: string;
  readonly json?: boolean;
}

/** `routerjobs reconcile`: what each declared change in the state did at the routers. */
export function reconcileCommand(): Command {
  return addClientOptions(new Command("reconcile"))
    .description("compare the declared changes in Terraform's state with what the routers ran")
    .option("--dir <dir>", "the Terraform working directory (default: the current directory)")
    .option("--json", "print one object per job resource")
    .addHelpText("after", HELP)
    .action(async (_options: ReconcileFlags, command: Command) => {
      const flags = command.optsWithGlobals<ReconcileFlags>();
      const [{ reconcileStack, report }, { locateTerraform }, { ChangesNotAppliedError }] = await Promise.all(
        [
          import("../../deploy/reconcile/deploy.js"),
          import("../../deploy/terraform/terraform.js"),
          import("../../errors.js"),
        ],
      );
      const { binary } = await locateTerraform("routerjobs reconcile reads the state with Terraform");
      const env = await provisionerEnv(flags);
      const write = (line: string) => process.stdout.write(`${line}\n`);
      const notDone = await withClient(command, async (client) => {
        const options = { terraform: binary, dir: flags.dir ?? process.cwd(), env, client, write };
        const { reconciliation } = await reconcileStack(options);
        if (flags.json)
          writeJson(
            reconciliation.findings.map((finding) => ({
              address: finding.resource.address,
              resource: finding.resource.identity.resource,
              router_id: finding.resource.identity.router_id,
              verdict: finding.verdict,
              detail: finding.detail,
              job: finding.job ?? null,
            })),
          );
        else await report(reconciliation, { client, write });
        return reconciliation.findings.filter((finding) => finding.verdict !== "ok").length;
      });
      if (notDone > 0)
        throw new ChangesNotAppliedError(
          `${notDone} declared change(s) are not done; 'routerjobs deploy' runs, waits for or reports them`,
        );
    });
}
