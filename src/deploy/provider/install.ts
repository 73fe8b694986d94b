/**
 * `routerjobs provider install`: a launcher named as Terraform looks for a provider executable, in a folder laid
 * out as a filesystem mirror (`HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/`), so that `terraform init` finds it with
 * no registry: in Terraform's implied local mirror (`~/.terraform.d/plugins`, searched without any
 * configuration), or in a folder of the user's choice named by a `provider_installation` block. The launcher
 * runs this package's built provider with the Node that ran the install, by absolute paths: Terraform starts
 * it with its own environment, whose PATH may hold another Node or none.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../../errors.js";
import {
  PROVIDER_HOST,
  PROVIDER_NAMESPACE,
  PROVIDER_SOURCE,
  PROVIDER_TYPE,
} from "../terraform/provider-address.js";

export interface InstallOptions {
  /** The mirror folder. @default Terraform's implied local mirror, ~/.terraform.d/plugins */
  readonly dir?: string | undefined;
  readonly version: string;
  /** Absolute path of the provider's entry (dist/bundle/provider.js). */
  readonly providerMain: string;
  /** @default process.execPath */
  readonly node?: string;
  readonly home?: string;
}

export interface Installed {
  readonly executable: string;
  readonly mirror: string;
  /** Whether Terraform searches the mirror without configuration. */
  readonly implied: boolean;
  /** The CLI configuration that makes Terraform take the provider from the mirror and nowhere else. */
  readonly cliConfig: string;
  /** What a configuration's `required_providers` says. */
  readonly requiredProviders: string;
}

/** Terraform's platform name for this machine (`linux_amd64`, `darwin_arm64`). */
export function terraformPlatform(platform = process.platform, arch = process.arch): string {
  const os = platform === "win32" ? "windows" : platform;
  const cpu = arch === "x64" ? "amd64" : arch === "ia32" ? "386" : arch;
  return `${os}_${cpu}`;
}

/** A word a POSIX shell reads back as exactly `text`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}

export function launcherScript(node: string, providerMain: string): string {
  return `#!/bin/sh\n# routerjobs provider launcher (written by \`routerjobs provider install\`)\nexec ${shellQuote(node)} ${shellQuote(providerMain)} "$@"\n`;
}

export async function installProvider(options: InstallOptions): Promise<Installed> {
  if (process.platform === "win32")
    throw new UsageError(
      "routerjobs provider install writes a POSIX shell launcher: run it on Linux or macOS",
    );
  if (!/^\d+\.\d+\.\d+$/.test(options.version))
    throw new UsageError(
      `Terraform needs a provider version of the form X.Y.Z; this package is ${options.version}`,
    );
  const implied = options.dir === undefined;
  const mirror = options.dir ?? join(options.home ?? homedir(), ".terraform.d", "plugins");
  const folder = join(
    mirror,
    PROVIDER_HOST,
    PROVIDER_NAMESPACE,
    PROVIDER_TYPE,
    options.version,
    terraformPlatform(),
  );
  const executable = join(folder, `terraform-provider-${PROVIDER_TYPE}_v${options.version}`);
  try {
    await mkdir(folder, { recursive: true });
    await writeFile(executable, launcherScript(options.node ?? process.execPath, options.providerMain));
    await chmod(executable, 0o755);
  } catch (error) {
    throw new UsageError(
      `cannot write the provider into ${folder} (${(error as NodeJS.ErrnoException).code ?? "error"}): pass --dir DIR with a folder you can write`,
    );
  }
  const cliConfig = `provider_installation {
  filesystem_mirror {
    path    = ${JSON.stringify(mirror)}
    include = ["${PROVIDER_SOURCE}"]
  }
  direct {
    exclude = ["${PROVIDER_SOURCE}"]
  }
}
`;
  const requiredProviders = `terraform {
  required_providers {
    routerjobs = {
      source  = "${PROVIDER_SOURCE}"
      version = "${options.version}"
    }
  }
}
`;
  return { executable, mirror, implied, cliConfig, requiredProviders };
}
