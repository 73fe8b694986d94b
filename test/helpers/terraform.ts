import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "vitest";
import { RouterJobsClient } from "../../src/client/client.js";
import { PACKAGE_ROOT } from "../../src/client/version.js";
import { findOnPath } from "../../src/deploy/terraform/terraform.js";

/**
 * `routerjobs provider install --dir <work>/mirror`, run as a user runs it (the built CLI, HOME in `work`): the
 * Terraform CLI configuration it prints, written to `<work>/cli.tfrc` for TF_CLI_CONFIG_FILE, and the
 * `required_providers` block it prints.
 */
export function installProviderMirror(work: string): { cliConfigFile: string; requiredProviders: string } {
  const printed = execFileSync(
    process.execPath,
    [join(PACKAGE_ROOT, "bin", "routerjobs.js"), "provider", "install", "--dir", join(work, "mirror")],
    { encoding: "utf8", env: { ...process.env, HOME: join(work, "home") } },
  );
  const cliConfig = printed.slice(printed.indexOf("provider_installation {"));
  if (!cliConfig.includes(join(work, "mirror"))) throw new Error(`provider install printed:\n${printed}`);
  const cliConfigFile = join(work, "cli.tfrc");
  writeFileSync(cliConfigFile, cliConfig);
  const requiredProviders = printed.slice(printed.indexOf("terraform {"), printed.indexOf("\n}\n") + 3);
  return { cliConfigFile, requiredProviders };
}

/** What a test of the provider under the real Terraform runs with. */
export interface ProviderRun {
  /**
   * The Terraform folder; its runs have the service's URL, token and CA file, the state dir and HOME under
   * `work`, and the mirror's CLI configuration.
   */
  readonly tf: TerraformDir;
  /** The `required_providers` block `provider install` printed. */
  readonly requiredProviders: string;
  /** A client of the same service, for the test's own reads of the routers' job lists. */
  readonly client: RouterJobsClient;
}

/** The provider installed into a mirror under `work`, and a Terraform folder whose runs use it against `service`. */
export function providerRun(
  terraform: string,
  work: string,
  service: { readonly url: string; readonly token: string; readonly ca: string; readonly caFile: string },
): ProviderRun {
  const { cliConfigFile, requiredProviders } = installProviderMirror(work);
  const env = {
    ROUTERJOBS_URL: service.url,
    ROUTERJOBS_TOKEN: service.token,
    ROUTERJOBS_CA_FILE: service.caFile,
    ROUTERJOBS_STATE_DIR: join(work, "state"),
    HOME: join(work, "home"),
    TF_CLI_CONFIG_FILE: cliConfigFile,
  };
  const client = new RouterJobsClient({
    baseUrl: service.url,
    token: service.token,
    ca: service.ca,
    budgetDir: join(work, "budget"),
  });
  return { tf: new TerraformDir(terraform, env), requiredProviders, client };
}

/**
 * The terraform binary, or undefined after printing why the suite skips. Under CI a missing terraform is a
 * failing test, not a skip: the real thing must run there.
 */
export function terraformOrSkip(what: string): string | undefined {
  const terraform = findOnPath("terraform");
  if (terraform) return terraform;
  const reason = `terraform is not on PATH: skipping ${what}`;
  if (process.env.CI === "true") {
    it("has terraform in CI", () => {
      throw new Error(`${reason}; CI=true requires it`);
    });
  } else {
    console.warn(reason);
  }
  return undefined;
}

export interface TerraformRun {
  readonly status: number | null;
  /** stdout and stderr interleaved, as a person sees them. */
  readonly output: string;
  /** stdout alone (`show -json`): terraform warns on stderr. */
  readonly stdout: string;
}

/** A working folder for one stack, and terraform run in it with a given environment. */
export class TerraformDir {
  readonly dir = mkdtempSync(join(tmpdir(), "rj-tf-"));

  constructor(
    private readonly terraform: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Copies a synthesized `cdk.tf.json` in, as `cdktf deploy` would hand it to terraform. */
  use(cdkTfJson: string): void {
    copyFileSync(cdkTfJson, join(this.dir, "cdk.tf.json"));
  }

  /** Asynchronous on purpose: a service under test may run in this very process and must keep answering. */
  async run(args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<TerraformRun> {
    const child = spawn(this.terraform, [...args, "-no-color"], {
      cwd: this.dir,
      env: this.environment(extraEnv),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => (output += chunk));
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    return { status, output, stdout };
  }

  async mustRun(args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
    const result = await this.run(args, extraEnv);
    if (result.status !== 0) throw new Error(`terraform ${args.join(" ")} failed:\n${result.output}`);
    return result.output;
  }

  /** Terraform's JSON output (`show -json`, `output -json`), parsed. */
  async json(args: readonly string[]): Promise<unknown> {
    const result = await this.run(args);
    if (result.status !== 0) throw new Error(`terraform ${args.join(" ")} failed:\n${result.output}`);
    return JSON.parse(result.stdout);
  }

  /** Starts terraform in its own process group, so a test can kill it and its provisioners at once. */
  start(args: readonly string[]): { kill(): void; done: Promise<number | null>; output: () => string } {
    const child = spawn(this.terraform, [...args, "-no-color"], {
      cwd: this.dir,
      env: this.environment({}),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    return {
      kill: () => process.kill(-(child.pid as number), "SIGKILL"),
      done: new Promise((resolve) => child.on("close", (code) => resolve(code))),
      output: () => output,
    };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private environment(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return { ...process.env, TF_IN_AUTOMATION: "1", CHECKPOINT_DISABLE: "1", ...this.env, ...extra };
  }
}
