import { Command } from "commander";

const HELP = `
Installs terraform-provider-routerjobs, the Terraform provider of this package (resource routerjobs_script:
a script run exactly once under plain 'terraform apply'), where 'terraform init' finds it with no registry
and no network. Without --dir it goes into Terraform's implied local mirror (~/.terraform.d/plugins), which
Terraform searches with no configuration; with --dir DIR it goes into DIR, and this prints the
provider_installation block to put in your Terraform CLI configuration (~/.terraformrc, or the file
TF_CLI_CONFIG_FILE names). Run it again after upgrading routerjobs (then 'terraform init -upgrade').
See docs/provider.md.

Examples:
  routerjobs provider install
  routerjobs provider install --dir ./terraform-mirror`;

interface InstallFlags {
  readonly dir?: string;
}

export function providerCommand(): Command {
  const provider = new Command("provider").description("the Terraform provider of routerjobs");
  provider
    .command("install")
    .description("install terraform-provider-routerjobs where terraform init finds it offline")
    .option(
      "--dir <dir>",
      "the filesystem mirror folder (default: Terraform's implied ~/.terraform.d/plugins)",
    )
    .addHelpText("after", HELP)
    .action(async (flags: InstallFlags) => {
      const [{ join, resolve }, { PACKAGE_ROOT, VERSION }, { installProvider }] = await Promise.all([
        import("node:path"),
        import("../../client/version.js"),
        import("../../deploy/provider/install.js"),
      ]);
      const installed = await installProvider({
        dir: flags.dir === undefined ? undefined : resolve(flags.dir),
        version: VERSION,
        providerMain: join(PACKAGE_ROOT, "dist", "bundle", "provider.js"),
      });
      const out = process.stdout;
      out.write(`installed ${installed.executable}\n\n`);
      out.write(`In your configuration:\n\n${installed.requiredProviders}\n`);
      if (installed.implied)
        out.write("Terraform searches this folder without configuration: run terraform init.\n");
      else
        out.write(
          `In your Terraform CLI configuration (~/.terraformrc, or the file TF_CLI_CONFIG_FILE names):\n\n${installed.cliConfig}`,
        );
    });
  return provider;
}
