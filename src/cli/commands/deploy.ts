import { Command } from "commander";
import {
  addClientOptions,
  CLIENT_ENV_HELP,
  type ClientFlags,
  readFlagFile,
  withClient,
} from "../settings/client-options.js";
import { untilInterrupted } from "../until-stopped.js";

const HELP = `
Runs 'terraform apply' in a working directory (a cdktf stack's cdktf.out/stacks/<stack>, or a plain
Terraform root module) so that every declared router change runs exactly once, whatever interrupted the
deploys before it:
  1. reads the Terraform state (terraform show -json) and asks each router's job list once;
  2. a change Terraform recorded but whose job never ran, or is still running, is replaced (-replace), so
     that it runs, or is waited for;
  3. a job that failed after an interrupted deploy is reported with the router's reason and its resource
     tainted; the deploy stops there (exit 1), and the next deploy runs it again;
  4. runs terraform apply -auto-approve; each provisioner ('routerjobs apply') gets the job lists and the
     state's facts through ROUTERJOBS_DEPLOY_FILE and decides without a request of its own.
Arguments after -- go to 'terraform apply' (-parallelism=20, -target=..., -replace=...).
Runs 'terraform init' first when the directory has no .terraform folder.
${CLIENT_ENV_HELP}

Examples:
  $ npx cdktf synth && routerjobs deploy --dir cdktf.out/stacks/office
  $ routerjobs deploy --dir infra/routers -- -parallelism=20
  $ routerjobs deploy -- -replace='module.dns.terraform_data.job'   # run one change again, on purpose`;

interface DeployFlags extends ClientFlags {
  readonly dir?: string;
}

/** `routerjobs deploy`: reconcile, then terraform apply with what the reconciliation found. */
export function deployCommand(): Command {
  return addClientOptions(new Command("deploy"))
    .description(
      "terraform apply that runs every declared change exactly once, also after an interrupted deploy",
    )
    .option("--dir <dir>", "the Terraform working directory (default: the current directory)")
    .argument("[terraform-args...]", "arguments for terraform apply, after --")
    .addHelpText("after", HELP)
    .action(async (applyArgs: string[], _options: DeployFlags, command: Command) => {
      const flags = command.optsWithGlobals<DeployFlags>();
      const [{ deployStack }, { locateTerraform }] = await Promise.all([
        import("../../deploy/reconcile/deploy.js"),
        import("../../deploy/terraform/terraform.js"),
      ]);
      const { binary } = await locateTerraform("routerjobs deploy runs Terraform");
      const env = await provisionerEnv(flags);
      await untilInterrupted("interrupted; run deploy again to finish", (signal) =>
        withClient(command, (client) =>
          deployStack({
            terraform: binary,
            dir: flags.dir ?? process.cwd(),
            env,
            client,
            applyArgs,
            write: (line) => process.stdout.write(`${line}\n`),
            signal,
          }),
        ),
      );
    });
}

/**
 * The environment of terraform and so of its provisioners: the connection flags given to deploy become the
 * variables 'routerjobs apply' reads (an environment, unlike a command line, is not visible to other users).
 */
export async function provisionerEnv(flags: ClientFlags): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (flags.url) env.ROUTERJOBS_URL = flags.url;
  if (flags.api) env.ROUTERJOBS_API = flags.api;
  if (flags.caFile) env.ROUTERJOBS_CA_FILE = flags.caFile;
  if (flags.rateLimit) env.ROUTERJOBS_RATE_LIMIT = flags.rateLimit;
  if (flags.timeout) env.ROUTERJOBS_TIMEOUT = flags.timeout;
  if (flags.tokenFile) env.ROUTERJOBS_TOKEN = (await readFlagFile(flags.tokenFile, "--token-file")).trim();
  return env;
}
